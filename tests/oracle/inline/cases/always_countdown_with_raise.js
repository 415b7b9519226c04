// events: [{"type": "ARM", "from": 3}]
import { createMachine, assign, raise } from 'xstate';

const machine = createMachine({
  id: 'countdown',
  initial: 'idle',
  context: { left: 0, ticks: 0 },
  states: {
    idle: { on: { ARM: { target: 'armed', actions: assign({ left: ({ event }) => event.from }) } } },
    armed: {
      always: { target: 'boom', guard: ({ context }) => context.left <= 0 },
      entry: raise({ type: 'TICK' }),
      on: {
        TICK: {
          target: 'armed',
          reenter: true,
          actions: assign({ left: ({ context }) => context.left - 1, ticks: ({ context }) => context.ticks + 1 }),
        },
      },
    },
    boom: { type: 'final' },
  },
  output: ({ context }) => ({ ticks: context.ticks }),
});
