// events: [{"type": "INC"}, {"type": "BAD"}, {"type": "INC"}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'm',
  initial: 'a',
  context: { count: 0 },
  states: {
    a: {
      on: {
        INC: { actions: assign({ count: ({ context }) => context.count + 1 }) },
        BAD: { actions: assign({ count: () => { throw new Error('cannot count'); } }) },
      },
    },
  },
});
