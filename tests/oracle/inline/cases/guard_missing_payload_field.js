// events: [{"type": "MAYBE"}, {"type": "MAYBE", "flag": false}]
import { createMachine } from 'xstate';

const machine = createMachine({
  id: 'maybe',
  initial: 'a',
  states: {
    a: { on: { MAYBE: { target: 'b', guard: ({ event }) => event.flag === undefined } } },
    b: { on: { MAYBE: { target: 'c', guard: ({ event }) => event.flag === false } } },
    c: {},
  },
});
