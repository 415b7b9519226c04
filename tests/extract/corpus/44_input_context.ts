import { setup } from 'xstate';

export const orderMachine = setup({
  types: { input: {} as { orderId: string; lines: number } },
}).createMachine({
  id: 'order',
  context: ({ input }) => ({ orderId: input.orderId, lines: input.lines, shipped: false }),
  initial: 'placed',
  states: {
    placed: { on: { SHIP: { target: 'shipped', guard: ({ context }) => context.lines > 0 } } },
    shipped: { type: 'final', output: ({ context }) => ({ id: context.orderId }) },
  },
});
