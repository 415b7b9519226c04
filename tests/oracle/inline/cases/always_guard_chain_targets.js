// events: [{"type": "READ", "temp": -5}, {"type": "READ", "temp": 20}, {"type": "READ", "temp": 99}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'thermo',
  initial: 'idle',
  context: { temp: 0 },
  states: {
    idle: { on: { READ: { target: 'classify', actions: assign({ temp: ({ event }) => event.temp }) } } },
    classify: {
      always: [
        { target: 'cold', guard: ({ context }) => context.temp < 0 },
        { target: 'hot', guard: ({ context }) => context.temp > 40 },
        { target: 'mild' },
      ],
    },
    cold: { tags: ['alert'], on: { READ: { target: 'classify', actions: assign({ temp: ({ event }) => event.temp }) } } },
    mild: { on: { READ: { target: 'classify', actions: assign({ temp: ({ event }) => event.temp }) } } },
    hot: { tags: ['alert', 'hot'], type: 'final' },
  },
  output: ({ context }) => `too hot: ${context.temp}`,
});
