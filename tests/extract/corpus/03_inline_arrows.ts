import { createMachine, assign } from 'xstate';

type Ctx = { attempts: number; error?: string };

export const loginMachine = createMachine({
  id: 'login',
  initial: 'idle',
  context: { attempts: 0 } as Ctx,
  states: {
    idle: {
      entry: () => console.log('ready'),
      on: {
        SUBMIT: {
          target: 'submitting',
          guard: ({ context }: { context: Ctx }) => context.attempts < 3,
          actions: [
            assign({ attempts: ({ context }) => context.attempts + 1 }),
            ({ event }) => console.log('submit', event),
          ],
        },
      },
    },
    submitting: {
      exit: [() => console.log('left')],
      on: {
        FAIL: { target: 'idle', actions: assign({ error: ({ event }: any) => event.message }) },
        OK: 'done',
      },
    },
    done: { type: 'final' },
  },
});
