// events: [{"type": "ADD", "n": 4}, {"type": "TEST"}, {"type": "ADD", "n": 4}, {"type": "TEST"}]
import { setup, assign } from 'xstate';

const machine = setup({
  guards: {
    atLeast: ({ context }, params) => context.total >= params.min,
  },
}).createMachine({
  id: 'threshold',
  initial: 'below',
  context: { total: 0 },
  states: {
    below: {
      on: {
        ADD: { actions: assign({ total: ({ context, event }) => context.total + event.n }) },
        TEST: { target: 'above', guard: { type: 'atLeast', params: { min: 6 } } },
      },
    },
    above: {},
  },
});
