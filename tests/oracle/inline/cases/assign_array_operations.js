// events: [{"type": "PUSH", "value": 3}, {"type": "PUSH", "value": 1}, {"type": "PUSH", "value": 2}, {"type": "SORT"}, {"type": "POP"}, {"type": "REVERSE"}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'stack',
  initial: 'on',
  context: { items: [] },
  states: {
    on: {
      on: {
        PUSH: { actions: assign({ items: ({ context, event }) => [...context.items, event.value] }) },
        POP: { actions: assign({ items: ({ context }) => context.items.slice(0, -1) }) },
        SORT: { actions: assign({ items: ({ context }) => [...context.items].sort((a, b) => a - b) }) },
        REVERSE: { actions: assign({ items: ({ context }) => context.items.map((x) => x * 2).reverse() }) },
      },
    },
  },
});
