// events: [{"type": "INC"}, {"type": "INC"}, {"type": "INC"}, {"type": "INC"}]
import { createMachine, assign } from 'xstate';

const LIMIT = 3;

const machine = createMachine({
  id: 'closure',
  initial: 'on',
  context: { count: 0 },
  states: {
    on: {
      on: { INC: { guard: ({ context }) => context.count < LIMIT, actions: assign({ count: ({ context }) => context.count + 1 }) } },
    },
  },
});
