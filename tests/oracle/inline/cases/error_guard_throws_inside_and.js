// events: [{"type": "GO"}]
import { createMachine, and } from 'xstate';

const machine = createMachine({
  id: 'm',
  initial: 'a',
  states: {
    a: { on: { GO: { target: 'b', guard: and([() => true, () => { throw new RangeError('out of range'); }]) } } },
    b: {},
  },
});
