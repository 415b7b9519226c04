// events: [{"type": "GRADE", "score": 85}, {"type": "RESET"}, {"type": "GRADE", "score": 12}]
import { createMachine } from 'xstate';

const machine = createMachine({
  id: 'grader',
  initial: 'waiting',
  states: {
    waiting: {
      on: {
        GRADE: [
          { target: 'a', guard: ({ event }) => event.score >= 90 },
          { target: 'b', guard: ({ event }) => event.score >= 80 },
          { target: 'c' },
        ],
      },
    },
    a: {}, b: { on: { RESET: 'waiting' } }, c: {},
  },
});
