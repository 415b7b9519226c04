// events: [{"type": "CHECK", "values": [1, 2, 3]}, {"type": "CHECK", "values": [10, 20]}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'bodies',
  initial: 'a',
  context: { last: 0 },
  states: {
    a: {
      on: {
        CHECK: {
          target: 'b',
          guard: function ({ event }) {
            let total = 0;
            for (const value of event.values) total += value;
            return total > 10;
          },
          actions: assign({
            last: function ({ event }) {
              return Math.max(...event.values);
            },
          }),
        },
      },
    },
    b: {},
  },
});
