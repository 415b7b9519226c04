// events: [{"type": "INC"}, {"type": "INC"}, {"type": "INC"}, {"type": "CHECK"}]
import { setup, assign } from 'xstate';

const machine = setup({
  guards: {
    isBig: ({ context }) => context.count > 2,
    isSmall: ({ context }) => context.count <= 2,
  },
}).createMachine({
  id: 'sized',
  initial: 'small',
  context: { count: 0 },
  states: {
    small: {
      on: {
        INC: { actions: assign({ count: ({ context }) => context.count + 1 }) },
        CHECK: [{ target: 'big', guard: 'isBig' }, { target: 'small', guard: 'isSmall' }],
      },
    },
    big: { type: 'final' },
  },
});
