// events: [{"type": "ENTER", "vip": false, "ticket": false}, {"type": "ENTER", "vip": false, "ticket": true}]
import { createMachine, or } from 'xstate';

const machine = createMachine({
  id: 'club',
  initial: 'outside',
  states: {
    outside: {
      on: { ENTER: { target: 'inside', guard: or([({ event }) => event.vip, ({ event }) => event.ticket]) } },
    },
    inside: {},
  },
});
