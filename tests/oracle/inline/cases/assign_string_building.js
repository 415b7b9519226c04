// events: [{"type": "TYPE", "ch": "h"}, {"type": "TYPE", "ch": "i"}, {"type": "TYPE", "ch": "é"}, {"type": "SHOUT"}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'typing',
  initial: 'on',
  context: { text: '', summary: '' },
  states: {
    on: {
      on: {
        TYPE: { actions: assign({ text: ({ context, event }) => context.text + event.ch }) },
        SHOUT: {
          actions: assign(({ context }) => ({
            text: context.text.toUpperCase() + '!',
            summary: `${context.text.length} chars: ${JSON.stringify(context.text.split(''))}`,
          })),
        },
      },
    },
  },
});
