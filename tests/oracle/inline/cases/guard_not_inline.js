// events: [{"type": "SUBMIT", "text": ""}, {"type": "SUBMIT", "text": "hello"}]
import { createMachine, assign, not } from 'xstate';

const machine = createMachine({
  id: 'form',
  initial: 'editing',
  context: { text: null },
  states: {
    editing: {
      on: {
        SUBMIT: {
          target: 'sent',
          guard: not(({ event }) => event.text.length === 0),
          actions: assign({ text: ({ event }) => event.text }),
        },
      },
    },
    sent: { type: 'final' },
  },
  output: ({ context }) => ({ sent: context.text }),
});
