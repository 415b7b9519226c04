// events: [{"type": "EMPTY_LIST"}, {"type": "EMPTY_OBJECT"}, {"type": "NAN"}, {"type": "EMPTY_TEXT"}, {"type": "FUNCTION"}, {"type": "ITEMS"}]
import { createMachine, assign } from 'xstate';

// XState takes a guard's result by JavaScript's truthiness (`if (guardPassed)`): an empty array,
// an empty object and a function pass; NaN and '' do not.
const machine = createMachine({
  id: 'truthyObjects',
  initial: 'a',
  context: { passed: [], items: [] },
  states: {
    a: {
      on: {
        EMPTY_LIST: { guard: () => [], actions: assign({ passed: ({ context }) => context.passed.concat('list') }) },
        EMPTY_OBJECT: { guard: () => ({}), actions: assign({ passed: ({ context }) => context.passed.concat('object') }) },
        NAN: { guard: () => NaN, actions: assign({ passed: ({ context }) => context.passed.concat('nan') }) },
        EMPTY_TEXT: { guard: () => '', actions: assign({ passed: ({ context }) => context.passed.concat('text') }) },
        FUNCTION: { guard: () => () => false, actions: assign({ passed: ({ context }) => context.passed.concat('fn') }) },
        ITEMS: { guard: ({ context }) => context.items, target: 'b' },
      },
    },
    b: {},
  },
});
