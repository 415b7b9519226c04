import { setup, fromCallback, fromPromise } from 'xstate';

export const dashboard = setup({
  actors: {
    ticker: fromCallback(({ sendBack }) => {
      const id = setInterval(() => sendBack({ type: 'TICK' }), 1000);
      return () => clearInterval(id);
    }),
    loadUser: fromPromise(async ({ input }: { input: { id: string } }) => ({ id: input.id })),
  },
}).createMachine({
  id: 'dashboard',
  context: { userId: 'u1' },
  invoke: [
    { src: 'ticker', id: 'ticker' },
    { src: 'loadUser', input: ({ context }) => ({ id: context.userId }), onDone: { actions: 'storeUser' } },
    { src: fromPromise(async () => 42), onSnapshot: { actions: () => {} } },
  ],
  on: { TICK: { actions: 'refresh' } },
});
