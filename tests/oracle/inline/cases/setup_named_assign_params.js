// events: [{"type": "BIG"}, {"type": "SMALL"}]
import { setup, assign } from 'xstate';

const machine = setup({
  actions: {
    addAmount: assign({ count: ({ context }, params) => context.count + params.amount }),
  },
}).createMachine({
  id: 'params',
  initial: 'on',
  context: { count: 1 },
  states: {
    on: {
      on: {
        BIG: { actions: { type: 'addAmount', params: { amount: 100 } } },
        SMALL: { actions: { type: 'addAmount', params: { amount: 1 } } },
      },
    },
  },
});
