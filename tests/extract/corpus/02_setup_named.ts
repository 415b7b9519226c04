import { assign, setup } from 'xstate';

export const counterMachine = setup({
  types: {
    context: {} as { count: number },
    events: {} as { type: 'INC' } | { type: 'DEC' } | { type: 'RESET' },
  },
  guards: {
    canDecrement: ({ context }) => context.count > 0,
  },
  actions: {
    increment: assign({ count: ({ context }) => context.count + 1 }),
    decrement: assign({ count: ({ context }) => context.count - 1 }),
    reset: assign({ count: 0 }),
  },
}).createMachine({
  id: 'counter',
  context: { count: 0 },
  on: {
    INC: { actions: 'increment' },
    DEC: { guard: 'canDecrement', actions: 'decrement' },
    RESET: { actions: ['reset'] },
  },
});
