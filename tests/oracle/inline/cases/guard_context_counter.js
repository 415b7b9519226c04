// events: [{"type": "INC"}, {"type": "INC"}, {"type": "INC"}, {"type": "INC"}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'counter',
  initial: 'active',
  context: { count: 0 },
  states: {
    active: {
      on: {
        INC: [
          { guard: ({ context }) => context.count < 2, actions: assign({ count: ({ context }) => context.count + 1 }) },
          { target: 'full' },
        ],
      },
    },
    full: { type: 'final' },
  },
});
