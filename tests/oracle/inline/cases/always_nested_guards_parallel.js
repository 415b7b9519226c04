// events: [{"type": "INC"}, {"type": "INC"}, {"type": "INC"}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'levels',
  type: 'parallel',
  context: { count: 0 },
  states: {
    meter: {
      initial: 'low',
      states: {
        low: { always: { target: 'high', guard: ({ context }) => context.count >= 2 } },
        high: { always: { target: 'low', guard: ({ context }) => context.count < 2 } },
      },
    },
    input: {
      on: { INC: { actions: assign({ count: ({ context }) => context.count + 1 }) } },
    },
  },
});
