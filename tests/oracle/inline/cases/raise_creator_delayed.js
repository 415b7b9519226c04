// events: [{"type": "SCHEDULE", "what": "ALARM"}, {"type": "ALARM", "at": 7}]
import { createMachine, assign, raise } from 'xstate';

const machine = createMachine({
  id: 'alarm',
  initial: 'idle',
  context: { rang: null },
  states: {
    idle: {
      on: {
        SCHEDULE: { target: 'waiting', actions: raise(({ event }) => ({ type: event.what, at: 7 }), { delay: 1500, id: 'alarm1' }) },
      },
    },
    waiting: { on: { ALARM: { target: 'idle', actions: assign({ rang: ({ event }) => event.at }) } } },
  },
});
