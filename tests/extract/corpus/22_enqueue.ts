import { setup, enqueueActions } from 'xstate';

export const batcher = setup({
  actions: { flush: () => {}, buffer: () => {} },
}).createMachine({
  id: 'batcher',
  context: { size: 0 },
  on: {
    ADD: {
      actions: enqueueActions(({ context, enqueue, check }) => {
        enqueue('buffer');
        if (context.size > 10) {
          enqueue('flush');
        }
      }),
    },
  },
});
