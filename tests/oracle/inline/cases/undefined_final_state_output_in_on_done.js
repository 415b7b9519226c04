// events: [{"type": "GO"}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'child_done',
  initial: 'parent',
  context: { result: 'unset' },
  states: {
    parent: {
      initial: 'a',
      states: { a: { on: { GO: 'end' } }, end: { type: 'final' } },
      onDone: {
        target: 'after',
        actions: assign({ result: ({ event }) => (event.output === undefined ? 'no output' : 'output: ' + event.output) }),
      },
    },
    after: {},
  },
});
