// events: [{"type": "CALC", "a": 0.1, "b": 0.2}, {"type": "CALC", "a": 1e21, "b": 3}, {"type": "CALC", "a": -7, "b": 2}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'calc',
  initial: 'on',
  context: { sum: 0, quotient: 0, floor: 0, remainder: 0, big: 0, negZero: 1 },
  states: {
    on: {
      on: {
        CALC: {
          actions: assign({
            sum: ({ event }) => event.a + event.b,
            quotient: ({ event }) => event.a / event.b,
            floor: ({ event }) => Math.floor(event.a / event.b),
            remainder: ({ event }) => event.a % event.b,
            big: ({ event }) => 2 ** 53 + event.b,
            negZero: ({ event }) => -0 * event.b,
          }),
        },
      },
    },
  },
});
