// events: [{"type": "SET", "key": "color", "value": "red"}, {"type": "SET", "key": "size", "value": {"w": 3, "h": 4}}, {"type": "SET", "key": "color", "value": null}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'settings',
  initial: 'live',
  context: { prefs: {} },
  states: {
    live: {
      on: {
        SET: { actions: assign({ prefs: ({ context, event }) => ({ ...context.prefs, [event.key]: event.value }) }) },
      },
    },
  },
});
