// events: [{"type": "GREET", "name": "ada"}, {"type": "CHECK"}, {"type": "RAISE_LIMIT"}, {"type": "CHECK"}]
import { setup, assign } from 'xstate';

const machine = setup({
  guards: {
    atLeast: ({ context }, params) => context.count >= params.min,
  },
  actions: {
    greet: () => {},
    addTo: assign({ count: ({ context }, params) => context.count + params.by }),
  },
}).createMachine({
  id: 'dyn',
  initial: 'low',
  context: { count: 2, limit: 5, step: 3 },
  states: {
    low: {
      on: {
        GREET: { actions: { type: 'greet', params: ({ context, event }) => ({ name: event.name, count: context.count }) } },
        RAISE_LIMIT: { actions: { type: 'addTo', params: ({ context }) => ({ by: context.step }) } },
        CHECK: { target: 'high', guard: { type: 'atLeast', params: ({ context }) => ({ min: context.limit }) } },
      },
    },
    high: {},
  },
});
