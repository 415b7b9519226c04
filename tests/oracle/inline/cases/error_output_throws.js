// events: [{"type": "END"}]
import { createMachine } from 'xstate';

const machine = createMachine({
  id: 'm',
  initial: 'a',
  context: {},
  states: {
    a: { on: { END: 'z' } },
    z: { type: 'final' },
  },
  output: ({ context }) => context.result.value,
});
