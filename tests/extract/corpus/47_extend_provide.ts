// Implementations at every level: a base setup() shared by two features, extended with their
// own actions, one machine re-provided for tests, and a createMachine with a second argument.
import { setup, createMachine, assign, and, not, stateIn, fromCallback } from 'xstate';

const RETRY_BASE_MS = 200;

const connection = setup({
  types: {} as { context: { attempts: number; online: boolean } },
  guards: {
    canRetry: ({ context }) => context.attempts < 3,
    isOnline: ({ context }) => context.online,
  },
  delays: {
    backoff: ({ context }) => RETRY_BASE_MS * 2 ** context.attempts,
    timeout: 5_000,
  },
  actors: {
    socket: fromCallback(({ sendBack }) => {
      const timer = setInterval(() => sendBack({ type: 'PING' }), 1000);
      return () => clearInterval(timer);
    }),
  },
});

const withRetries = connection.extend({
  actions: {
    countAttempt: assign({ attempts: ({ context }) => context.attempts + 1 }),
    resetAttempts: assign({ attempts: 0 }),
  },
  guards: {
    shouldRetry: and(['canRetry', not('isOnline')]),
  },
});

export const socketMachine = withRetries
  .createMachine({
    id: 'socket',
    context: { attempts: 0, online: false },
    initial: 'connecting',
    states: {
      connecting: {
        invoke: { src: 'socket', onError: 'waiting' },
        on: { OPEN: { target: 'open', actions: 'resetAttempts' } },
        after: { timeout: 'waiting' },
      },
      waiting: {
        entry: 'countAttempt',
        after: { backoff: [{ guard: 'shouldRetry', target: 'connecting' }, { target: 'failed' }] },
      },
      open: { on: { CLOSE: 'waiting' } },
      failed: { type: 'final' },
    },
  })
  .provide({
    delays: { timeout: 50 },
    guards: { canRetry: ({ context }) => context.attempts < 10 },
  });

export const indicatorMachine = createMachine(
  {
    id: 'indicator',
    type: 'parallel',
    states: {
      link: { initial: 'down', states: { down: { on: { UP: 'up' } }, up: { on: { DOWN: 'down' } } } },
      lamp: {
        initial: 'off',
        states: {
          off: { on: { TICK: { guard: 'linkUp', target: 'on' } } },
          on: { on: { TICK: { guard: not('linkUp'), target: 'off' } } },
        },
      },
    },
  },
  {
    guards: { linkUp: stateIn({ link: 'up' }) },
    actions: { blink: () => {} },
  },
);
