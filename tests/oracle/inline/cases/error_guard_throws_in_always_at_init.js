// events: []
import { createMachine } from 'xstate';

const machine = createMachine({
  id: 'm',
  initial: 'a',
  context: { list: null },
  states: {
    a: { always: { target: 'b', guard: ({ context }) => context.list.length > 0 } },
    b: {},
  },
});
