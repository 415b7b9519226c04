// events: [{"type": "START", "to": 5}, {"type": "START", "to": 2}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'loop',
  initial: 'idle',
  context: { i: 0, target: 0, visits: [] },
  states: {
    idle: {
      on: { START: { target: 'counting', actions: assign({ i: 0, target: ({ event }) => event.to, visits: [] }) } },
    },
    counting: {
      always: [
        {
          guard: ({ context }) => context.i < context.target,
          actions: assign({ i: ({ context }) => context.i + 1, visits: ({ context }) => [...context.visits, context.i] }),
        },
        { target: 'idle' },
      ],
    },
  },
});
