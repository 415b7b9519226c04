// events: [{"type": "ARM", "ms": 300}, {"type": "FIRE"}]
import { createMachine, assign, raise } from 'xstate';

const machine = createMachine({
  id: 'delayed',
  initial: 'idle',
  context: { ms: 0 },
  states: {
    idle: {
      on: {
        ARM: {
          target: 'armed',
          actions: [assign({ ms: ({ event }) => event.ms }), raise({ type: 'FIRE' }, { delay: ({ context }) => context.ms + 1, id: 'fire' })],
        },
      },
    },
    armed: { on: { FIRE: 'fired' } },
    fired: {},
  },
});
