import { createMachine } from 'xstate';

export const checkout = createMachine({
  id: 'checkout',
  initial: 'cart',
  context: { total: 0 },
  output: ({ context }) => ({ paid: context.total }),
  states: {
    cart: { on: { PAY: 'payment' } },
    payment: {
      initial: 'card',
      states: {
        card: { on: { AUTHORIZED: 'done' } },
        done: { type: 'final', output: { ok: true } },
      },
      onDone: 'complete',
    },
    complete: { type: 'final' },
  },
});
