// events: [{"type": "LOAD", "data": null}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'm',
  initial: 'idle',
  context: { data: { rows: [] } },
  states: {
    idle: { on: { LOAD: { target: 'check', actions: assign({ data: ({ event }) => event.data }) } } },
    check: { always: [{ target: 'empty', guard: ({ context }) => context.data.rows.length === 0 }, { target: 'full' }] },
    empty: {}, full: {},
  },
});
