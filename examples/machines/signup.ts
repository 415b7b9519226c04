import { setup } from 'xstate';

// A factory of the kind applications write: statekit applies it to its constant argument.
const countAttempt = (by: number) => signup.assign({ attempts: ({ context }) => context.attempts + by });

const signup = setup({
  types: {} as { context: { attempts: number; email: string } },
  guards: {
    tooManyAttempts: ({ context }) => context.attempts >= 3,
  },
});

export const signupMachine = signup.createMachine({
  id: 'signup',
  initial: 'editing',
  context: { attempts: 0, email: '' },
  states: {
    editing: {
      on: {
        SUBMIT: [
          { guard: 'tooManyAttempts', target: 'locked' },
          { target: 'verifying', actions: [countAttempt(1), signup.raise({ type: 'CHECK' })] },
        ],
      },
    },
    verifying: {
      on: {
        CHECK: { actions: signup.emit({ type: 'checking' }) },
        REJECT: 'editing',
        ACCEPT: 'done',
      },
    },
    locked: {},
    done: { type: 'final' },
  },
});
