import { createMachine, assign } from 'xstate';

export const cart = createMachine({
  id: 'cart',
  context: { items: [] as string[], total: 0 },
  on: {
    ADD: {
      actions: assign(({ context, event }: any) => ({
        items: [...context.items, event.item],
        total: context.total + event.price,
      })),
    },
    CLEAR: { actions: assign(() => ({ items: [], total: 0 })) },
  },
});
