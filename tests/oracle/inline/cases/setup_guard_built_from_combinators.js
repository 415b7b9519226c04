// events: [{"type": "GO"}, {"type": "SET_A"}, {"type": "GO"}, {"type": "SET_B"}, {"type": "GO"}]
import { setup, assign, and, not } from 'xstate';

const machine = setup({
  guards: {
    isB: ({ context }) => context.b,
    both: and([({ context }) => context.a, 'isB']),
    notBoth: not('both'),
  },
}).createMachine({
  id: 'combo',
  initial: 'waiting',
  context: { a: false, b: false, misses: 0 },
  states: {
    waiting: {
      on: {
        SET_A: { actions: assign({ a: true }) },
        SET_B: { actions: assign({ b: true }) },
        GO: [
          { target: 'open', guard: 'both' },
          { guard: 'notBoth', actions: assign({ misses: ({ context }) => context.misses + 1 }) },
        ],
      },
    },
    open: { type: 'final' },
  },
  output: ({ context }) => ({ misses: context.misses }),
});
