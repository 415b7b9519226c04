// events: [{"type": "GO", "speed": 3}, {"type": "GO", "speed": 30}, {"type": "FUEL"}, {"type": "GO", "speed": 30}]
import { createMachine, assign, and } from 'xstate';

const machine = createMachine({
  id: 'car',
  initial: 'parked',
  context: { fuel: 0 },
  states: {
    parked: {
      on: {
        FUEL: { actions: assign({ fuel: ({ context }) => context.fuel + 10 }) },
        GO: {
          target: 'driving',
          guard: and([({ context }) => context.fuel > 0, ({ event }) => event.speed > 10]),
        },
      },
    },
    driving: {},
  },
});
