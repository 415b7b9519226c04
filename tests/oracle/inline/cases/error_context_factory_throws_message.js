// events: []
// input: {"mode": "bad"}
import { createMachine } from 'xstate';

const machine = createMachine({
  id: 'm',
  initial: 'a',
  context: ({ input }) => {
    if (input.mode === 'bad') throw new Error(`unsupported mode ${input.mode}`);
    return { mode: input.mode };
  },
  states: { a: {} },
});
