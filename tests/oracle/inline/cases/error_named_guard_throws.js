// events: [{"type": "GO"}]
import { setup } from 'xstate';

const machine = setup({
  guards: { broken: ({ context }) => context.nothing.here },
}).createMachine({
  id: 'm',
  initial: 'a',
  context: {},
  states: {
    a: { on: { GO: { target: 'b', guard: 'broken' } } },
    b: {},
  },
});
