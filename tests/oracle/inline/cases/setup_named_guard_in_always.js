// events: [{"type": "FILL", "amount": 40}, {"type": "FILL", "amount": 70}]
import { setup, assign, not } from 'xstate';

const machine = setup({
  guards: {
    overflowing: ({ context }) => context.level > 100,
  },
  actions: {
    fill: assign({ level: ({ context, event }) => context.level + event.amount }),
  },
}).createMachine({
  id: 'tank',
  initial: 'filling',
  context: { level: 0 },
  states: {
    filling: {
      on: { FILL: { actions: 'fill' } },
      always: { target: 'overflow', guard: 'overflowing' },
    },
    overflow: { tags: ['alarm'], always: { target: 'filling', guard: not('overflowing') } },
  },
});
