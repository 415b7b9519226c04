// events: [{"type": "CLEAR"}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'clear',
  initial: 'on',
  context: { keep: 1, gone: 'value' },
  states: {
    on: {
      on: {
        CLEAR: { target: 'cleared', actions: assign({ gone: () => undefined }) },
      },
    },
    cleared: { always: { target: 'empty', guard: ({ context }) => context.gone === undefined } },
    empty: {},
  },
});
