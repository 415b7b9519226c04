import { createMachine, assign } from 'xstate';

const initialContext = { retries: 0, max: 3 };

export const retry = createMachine({
  id: 'retry',
  initial: 'trying',
  context: initialContext,
  states: {
    trying: {
      on: {
        FAIL: [
          { guard: ({ context }) => context.retries >= context.max, target: 'gaveUp' },
          { target: 'trying', reenter: true, actions: assign({ retries: ({ context }) => context.retries + 1 }) },
        ],
        SUCCEED: 'succeeded',
      },
    },
    succeeded: { type: 'final' },
    gaveUp: { type: 'final' },
  },
});
