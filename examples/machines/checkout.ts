import { assign, createMachine } from 'xstate';

export const checkout = createMachine({
  id: 'checkout',
  initial: 'cart',
  context: { items: 0 },
  states: {
    cart: {
      on: {
        ADD_ITEM: { actions: assign({ items: ({ context }) => context.items + 1 }) },
        CHECKOUT: { target: 'payment', guard: ({ context }) => context.items > 0 },
      },
    },
    payment: {
      // The payment page expires after 15 minutes.
      after: { 900000: 'cart' },
      on: { PAY: 'paid', BACK: 'cart' },
    },
    paid: { type: 'final' },
  },
});
