// events: [{"type": "BAD", "payload": null}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'm',
  initial: 'a',
  context: { x: 1 },
  states: {
    a: { on: { BAD: { target: 'b', actions: assign(({ event }) => ({ x: event.payload.x })) } } },
    b: {},
  },
});
