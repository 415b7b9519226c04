// events: [{"type": "NEXT", "ok": true}, {"type": "PAUSE"}, {"type": "RESUME"}, {"type": "NEXT", "ok": false}, {"type": "NEXT", "ok": true}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'wizard',
  initial: 'steps',
  context: { pauses: 0 },
  states: {
    steps: {
      initial: 'one',
      states: {
        one: { on: { NEXT: { target: 'two', guard: ({ event }) => event.ok } } },
        two: { on: { NEXT: { target: 'three', guard: ({ event }) => event.ok } } },
        three: {},
        hist: { type: 'history' },
      },
      on: { PAUSE: { target: 'paused', actions: assign({ pauses: ({ context }) => context.pauses + 1 }) } },
    },
    paused: { on: { RESUME: { target: 'steps.hist', guard: ({ context }) => context.pauses < 5 } } },
  },
});
