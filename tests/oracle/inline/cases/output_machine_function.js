// events: [{"type": "ADD", "n": 4}, {"type": "ADD", "n": 6}, {"type": "FINISH"}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'summer',
  initial: 'adding',
  context: { values: [] },
  states: {
    adding: {
      on: {
        ADD: { actions: assign({ values: ({ context, event }) => [...context.values, event.n] }) },
        FINISH: 'finished',
      },
    },
    finished: { type: 'final' },
  },
  output: ({ context }) => ({ sum: context.values.reduce((a, b) => a + b, 0), count: context.values.length }),
});
