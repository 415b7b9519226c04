// events: [{"type": "START", "n": 3}]
import { createMachine, assign, raise } from 'xstate';

const machine = createMachine({
  id: 'chain',
  initial: 'idle',
  context: { n: 0, seen: [] },
  states: {
    idle: { on: { START: { target: 'step', actions: assign({ n: ({ event }) => event.n }) } } },
    step: {
      entry: raise(({ context }) => ({ type: context.n > 0 ? 'DOWN' : 'DONE', at: context.n })),
      on: {
        DOWN: {
          target: 'step',
          reenter: true,
          actions: assign({ n: ({ context }) => context.n - 1, seen: ({ context, event }) => [...context.seen, event.at] }),
        },
        DONE: 'finished',
      },
    },
    finished: { type: 'final' },
  },
  output: ({ context }) => context.seen,
});
