// events: []
import { createMachine } from 'xstate';

const machine = createMachine({
  id: 'm',
  initial: 'a',
  context: ({ input }) => ({ value: input.required.deep }),
  states: { a: {} },
});
