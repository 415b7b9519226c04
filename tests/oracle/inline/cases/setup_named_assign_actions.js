// events: [{"type": "INC"}, {"type": "INC"}, {"type": "ADD", "by": 5}, {"type": "RESET"}]
import { setup, assign } from 'xstate';

const machine = setup({
  actions: {
    increment: assign({ count: ({ context }) => context.count + 1 }),
    addBy: assign(({ context, event }) => ({ count: context.count + event.by })),
    reset: assign({ count: 0 }),
  },
}).createMachine({
  id: 'named',
  initial: 'on',
  context: { count: 0 },
  states: {
    on: {
      on: {
        INC: { actions: 'increment' },
        ADD: { actions: ['addBy', 'increment'] },
        RESET: { actions: { type: 'reset' } },
      },
    },
  },
});
