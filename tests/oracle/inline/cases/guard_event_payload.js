// events: [{"type": "PAY", "amount": 5}, {"type": "PAY", "amount": 50}, {"type": "PAY", "amount": 7}]
import { createMachine } from 'xstate';

const machine = createMachine({
  id: 'payment',
  initial: 'idle',
  states: {
    idle: {
      on: { PAY: { target: 'review', guard: ({ event }) => event.amount > 10 } },
    },
    review: {
      on: { PAY: { target: 'idle', guard: ({ event }) => event.amount < 10 } },
    },
  },
});
