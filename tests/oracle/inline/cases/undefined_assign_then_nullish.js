// events: [{"type": "CLEAR"}, {"type": "CHECK"}, {"type": "SET_NULL"}, {"type": "CHECK"}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'nullish',
  initial: 'on',
  context: { value: 1, seen: [] },
  states: {
    on: {
      on: {
        CLEAR: { actions: assign({ value: () => undefined }) },
        SET_NULL: { actions: assign({ value: () => null }) },
        CHECK: {
          actions: assign({
            seen: ({ context }) => [...context.seen, context.value === undefined ? 'undefined' : context.value === null ? 'null' : 'other', 'value' in context, context.value ?? 'fallback'],
          }),
        },
      },
    },
  },
});
