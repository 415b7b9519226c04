// events: []
// input: {"n": 6}
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'fib',
  initial: 'run',
  context: ({ input }) => ({ n: input.n, a: 0, b: 1, steps: 0 }),
  states: {
    run: {
      always: [
        {
          guard: ({ context }) => context.steps < context.n,
          actions: assign(({ context }) => ({ a: context.b, b: context.a + context.b, steps: context.steps + 1 })),
        },
        { target: 'done' },
      ],
    },
    done: { type: 'final' },
  },
  output: ({ context }) => context.a,
});
