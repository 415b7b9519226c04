// events: [{"type": "SWAP"}, {"type": "SWAP"}, {"type": "ADD", "n": 3}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'pair',
  initial: 'on',
  context: { left: 'L', right: 'R', total: 0 },
  states: {
    on: {
      on: {
        SWAP: { actions: assign(({ context }) => ({ left: context.right, right: context.left })) },
        ADD: { actions: assign(({ context, event }) => ({ total: context.total + event.n })) },
      },
    },
  },
});
