// events: [{"type": "ATTEMPT", "pass": "x"}, {"type": "ATTEMPT", "pass": "y"}, {"type": "ATTEMPT", "pass": "z"}]
// input: {"maxAttempts": 2, "secret": "z"}
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'login',
  initial: 'prompt',
  context: ({ input }) => ({ attempts: 0, max: input.maxAttempts, secret: input.secret }),
  states: {
    prompt: {
      on: {
        ATTEMPT: [
          { target: 'granted', guard: ({ context, event }) => event.pass === context.secret },
          {
            target: 'locked',
            guard: ({ context }) => context.attempts + 1 >= context.max,
            actions: assign({ attempts: ({ context }) => context.attempts + 1 }),
          },
          { actions: assign({ attempts: ({ context }) => context.attempts + 1 }) },
        ],
      },
    },
    granted: { type: 'final' },
    locked: { type: 'final' },
  },
  output: ({ context }) => ({ attempts: context.attempts }),
});
