// events: [{"type": "GO", "n": -1}]
import { createMachine } from 'xstate';

const machine = createMachine({
  id: 'm',
  initial: 'a',
  states: {
    a: {
      on: {
        GO: {
          target: 'b',
          guard: ({ event }) => {
            if (event.n < 0) throw new Error('negative input');
            return true;
          },
        },
      },
    },
    b: {},
  },
});
