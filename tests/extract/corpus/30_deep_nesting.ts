import { createMachine } from 'xstate';

export const nested = createMachine({
  id: 'nested',
  initial: 'l1',
  states: {
    l1: {
      initial: 'l2',
      states: {
        l2: {
          initial: 'l3',
          states: {
            l3: {
              initial: 'l4',
              states: {
                l4: { on: { UP: '#nested.l1', SIDE: { target: '#leaf' } } },
                leaf: { id: 'leaf', type: 'final' },
              },
              onDone: '.l4',
            },
          },
        },
      },
    },
  },
});
