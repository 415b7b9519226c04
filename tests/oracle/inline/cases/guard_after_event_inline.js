// events: [{"type": "xstate.after.1000.timer.waiting"}, {"type": "POKE"}, {"type": "xstate.after.1000.timer.waiting"}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'timer',
  initial: 'waiting',
  context: { poked: false },
  states: {
    waiting: {
      on: { POKE: { actions: assign({ poked: () => true }) } },
      after: { 1000: { target: 'expired', guard: ({ context }) => context.poked } },
    },
    expired: {},
  },
});
