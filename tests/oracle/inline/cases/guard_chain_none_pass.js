// events: [{"type": "TRY", "n": 1}, {"type": "TRY", "n": 2}, {"type": "TRY", "n": 3}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'picky',
  initial: 'idle',
  context: { tries: 0 },
  states: {
    idle: {
      on: {
        TRY: [
          { target: 'big', guard: ({ event }) => event.n > 100 },
          { target: 'odd', guard: ({ event, context }) => event.n % 2 === 1 && context.tries > 5 },
        ],
      },
    },
    big: {}, odd: {},
  },
});
