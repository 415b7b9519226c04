// events: [{"type": "FORWARD", "inner": "PING", "count": 2}, {"type": "FORWARD", "inner": "PONG", "count": 1}]
import { createMachine, assign, raise } from 'xstate';

const machine = createMachine({
  id: 'relay',
  initial: 'ready',
  context: { pings: 0, pongs: 0 },
  states: {
    ready: {
      on: {
        FORWARD: { actions: raise(({ event }) => ({ type: event.inner, times: event.count })) },
        PING: { actions: assign({ pings: ({ context, event }) => context.pings + event.times }) },
        PONG: { target: 'stopped', actions: assign({ pongs: ({ context, event }) => context.pongs + event.times }) },
      },
    },
    stopped: {},
  },
});
