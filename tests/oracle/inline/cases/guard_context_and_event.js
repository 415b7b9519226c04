// events: [{"type": "ENTER", "pin": "0000"}, {"type": "ENTER", "pin": "1234"}, {"type": "LOCK"}]
import { createMachine } from 'xstate';

const machine = createMachine({
  id: 'safe',
  initial: 'locked',
  context: { pin: '1234' },
  states: {
    locked: { on: { ENTER: { target: 'open', guard: ({ context, event }) => event.pin === context.pin } } },
    open: { on: { LOCK: 'locked' } },
  },
});
