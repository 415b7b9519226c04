// events: [{"type": "A", "weight": 1}, {"type": "B", "weight": 7}, {"type": "C", "weight": 2}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'catchall',
  initial: 'light',
  context: { seen: [] },
  states: {
    light: {
      on: {
        '*': [
          { target: 'heavy', guard: ({ event }) => event.weight > 5, actions: assign({ seen: ({ context, event }) => [...context.seen, event.type] }) },
          { actions: assign({ seen: ({ context, event }) => [...context.seen, event.type.toLowerCase()] }) },
        ],
      },
    },
    heavy: { on: { '*': { target: 'light', actions: assign({ seen: ({ context, event }) => [...context.seen, 'back:' + event.type] }) } } },
  },
});
