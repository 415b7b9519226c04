// events: [{"type": "CHECK"}, {"type": "ADD", "item": "x"}, {"type": "CHECK"}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'truthy',
  initial: 'empty',
  context: { items: [] },
  states: {
    empty: {
      on: {
        ADD: { actions: assign({ items: ({ context, event }) => context.items.concat(event.item) }) },
        CHECK: { target: 'nonEmpty', guard: ({ context }) => context.items.length },
      },
    },
    nonEmpty: {},
  },
});
