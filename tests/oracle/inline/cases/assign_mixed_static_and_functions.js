// events: [{"type": "SAVE", "title": "Draft 1"}, {"type": "EDIT"}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'doc',
  initial: 'editing',
  context: { title: '', saved: false, version: 0 },
  states: {
    editing: {
      on: {
        SAVE: {
          target: 'saved',
          actions: assign({ saved: true, title: ({ event }) => event.title, version: ({ context }) => context.version + 1 }),
        },
      },
    },
    saved: { on: { EDIT: { target: 'editing', actions: assign({ saved: false }) } } },
  },
});
