// events: [{"type": "ANY"}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'm',
  initial: 'a',
  context: { n: 0 },
  states: {
    a: { entry: assign({ n: () => { throw new Error('entry failed'); } }), on: { ANY: 'b' } },
    b: {},
  },
});
