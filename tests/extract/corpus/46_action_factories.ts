// User-written action and guard factories: functions that return built-in actions or guard
// objects, called with constants where the machine is written (a shopping-cart counter).
import { createMachine, assign, raise, sendParent, and, not, log } from 'xstate';

const MAX_ITEMS = 20;
const BULK = 5;

type CartContext = { items: number; coupon: string | null };

function addItems(quantity: number) {
  return assign({ items: ({ context }: { context: CartContext }) => context.items + quantity });
}

const removeItems = (quantity = 1) =>
  assign({ items: ({ context }: { context: CartContext }) => Math.max(0, context.items - quantity) });

const withCoupon = (code: string) => {
  const normalized = code.toUpperCase();
  return assign({ coupon: () => normalized });
};

const below = (limit: number) => ({ type: 'below', params: { limit } });
const announce = (kind: string) => raise({ type: 'ANNOUNCE', kind });
const reportTo = (channel: string) => sendParent({ type: 'CART_CHANGED', channel });
const trace = (label: string) => log(({ context }: { context: CartContext }) => context.items, label);

const cartActions = {
  clear() {
    return assign({ items: 0, coupon: null });
  },
  logLine: (line: string) => () => console.log(line),
};

export const cartMachine = createMachine(
  {
    id: 'cart',
    context: { items: 0, coupon: null } as CartContext,
    initial: 'open',
    states: {
      open: {
        entry: [trace('open'), cartActions.logLine('cart opened')],
        on: {
          ADD: [
            { guard: and([below(MAX_ITEMS), not(below(1))]), actions: [addItems(1), reportTo('ui')] },
            { guard: below(MAX_ITEMS), actions: addItems(1) },
            { actions: announce('full') },
          ],
          ADD_BULK: { guard: below(MAX_ITEMS - BULK), actions: [addItems(BULK), announce('bulk')] },
          REMOVE: { actions: removeItems() },
          COUPON: { actions: withCoupon('spring') },
          CHECKOUT: { target: 'checkingOut', guard: not(below(1)) },
          CLEAR: { actions: cartActions.clear() },
        },
      },
      checkingOut: {
        entry: reportTo('checkout'),
        on: { BACK: 'open', PAY: 'paid' },
      },
      paid: { type: 'final', entry: cartActions.clear() },
    },
  },
  {
    guards: {
      below: ({ context }, params: { limit: number }) => context.items < params.limit,
    },
  },
);
