// events: [{"type": "ADD", "item": "apple"}, {"type": "ADD", "item": "stone"}, {"type": "ADD", "item": "pear"}, {"type": "ADD", "item": "plum"}]
import { createMachine, assign } from 'xstate';

const MAX_ITEMS = 2;
const ALLOWED = ['apple', 'pear', 'plum'];
const LABELS = { full: 'basket full', ok: 'added' };
const FACTOR = MAX_ITEMS * 10;

const machine = createMachine({
  id: 'basket',
  initial: 'filling',
  context: { items: [], note: '' },
  states: {
    filling: {
      always: { guard: ({ context }) => context.items.length >= MAX_ITEMS, target: 'full' },
      on: {
        ADD: {
          guard: ({ event }) => ALLOWED.includes(event.item),
          actions: assign({ items: ({ context, event }) => [...context.items, event.item], note: () => LABELS.ok + ' x' + FACTOR }),
        },
      },
    },
    full: { entry: assign({ note: () => LABELS.full }) },
  },
});
