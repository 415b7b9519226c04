// events: [{"type": "GO"}, {"type": "TOGGLE"}, {"type": "GO"}]
import { createMachine, and, stateIn } from 'xstate';

const machine = createMachine({
  id: 'panel',
  type: 'parallel',
  context: { armed: true },
  states: {
    power: { initial: 'off', states: { off: { on: { TOGGLE: 'on' } }, on: { on: { TOGGLE: 'off' } } } },
    motor: {
      initial: 'idle',
      states: {
        idle: { on: { GO: { target: 'running', guard: and([stateIn({ power: 'on' }), ({ context }) => context.armed]) } } },
        running: {},
      },
    },
  },
});
