// events: [{"type": "GO"}]
import { createMachine } from 'xstate';

const machine = createMachine({
  id: 'effects',
  initial: 'a',
  states: {
    a: {
      entry: ({ context }) => { void context; },
      exit: [() => {}, function namedExit() {}],
      on: { GO: { target: 'b', actions: ({ event }) => { void event; } } },
    },
    b: {},
  },
});
