import * as xstate from 'xstate';

export const machine = xstate.createMachine({
  id: 'ns',
  initial: 'a',
  context: { n: 0 },
  states: {
    a: {
      on: {
        GO: {
          target: 'b',
          actions: xstate.assign({ n: ({ context }) => context.n + 1 }),
        },
      },
    },
    b: { entry: xstate.raise({ type: 'BACK' }), on: { BACK: 'a' } },
  },
});
