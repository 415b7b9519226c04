// events: [{"type": "OPEN", "user": "ada"}, {"type": "CLOSE"}]
import { setup, assign, spawnChild, fromPromise } from 'xstate';

const machine = setup({
  actors: {
    session: fromPromise(async ({ input }) => input),
    audit: fromPromise(async () => null),
  },
}).createMachine({
  id: 'host',
  initial: 'closed',
  context: { user: null, opened: 0 },
  states: {
    closed: {
      on: {
        OPEN: {
          target: 'open',
          actions: [
            assign({ user: ({ event }) => event.user, opened: ({ context }) => context.opened + 1 }),
            spawnChild('audit', { id: 'audit', input: ({ context, event }) => ({ who: event.user, count: context.opened }) }),
          ],
        },
      },
    },
    open: {
      invoke: { id: 'sess', src: 'session', input: ({ context }) => ({ user: context.user.toUpperCase() }) },
      on: { CLOSE: 'closed' },
    },
  },
});
