// events: [{"type": "NAME", "name": "bob"}, {"type": "NAME", "name": "Alice"}, {"type": "NAME", "name": "anna"}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'names',
  initial: 'listening',
  context: { accepted: [] },
  states: {
    listening: {
      on: {
        NAME: {
          guard: ({ event }) => event.name.toLowerCase().startsWith('a'),
          actions: assign({ accepted: ({ context, event }) => [...context.accepted, event.name.toUpperCase()] }),
        },
      },
    },
  },
});
