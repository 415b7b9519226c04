// events: [{"type": "SIGNUP", "user": {"name": "kid", "age": 12}}, {"type": "SIGNUP", "user": {"name": "ada", "age": 36, "langs": ["en", "fr"]}}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'signup',
  initial: 'form',
  context: { user: null },
  states: {
    form: {
      on: {
        SIGNUP: {
          target: 'done',
          guard: ({ event }) => event.user.age >= 18 && (event.user.langs ?? []).length > 1,
          actions: assign({ user: ({ event }) => ({ ...event.user, adult: true }) }),
        },
      },
    },
    done: { type: 'final' },
  },
  output: ({ context }) => context.user.name,
});
