// events: [{"type": "START", "ms": 250}, {"type": "xstate.after.pause.waiter.waiting"}]
import { setup, assign } from 'xstate';

const machine = setup({
  delays: {
    pause: ({ context }) => context.ms * 2,
  },
}).createMachine({
  id: 'waiter',
  initial: 'idle',
  context: { ms: 0 },
  states: {
    idle: { on: { START: { target: 'waiting', actions: assign({ ms: ({ event }) => event.ms }) } } },
    waiting: { after: { pause: 'done' } },
    done: { type: 'final' },
  },
});
