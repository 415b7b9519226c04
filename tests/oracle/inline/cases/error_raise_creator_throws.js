// events: [{"type": "GO"}]
import { createMachine, raise } from 'xstate';

const machine = createMachine({
  id: 'm',
  initial: 'a',
  states: {
    a: { on: { GO: { actions: raise(({ event }) => ({ type: event.missing.type })) } } },
  },
});
