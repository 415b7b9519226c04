// events: [{"type": "TICK", "t": 1}, {"type": "TICK", "t": 2}, {"type": "TICK", "t": 3}, {"type": "TICK", "t": 6}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'clocks',
  type: 'parallel',
  context: { evens: 0, threes: 0 },
  states: {
    even: {
      initial: 'no',
      states: {
        no: { on: { TICK: { target: 'yes', guard: ({ event }) => event.t % 2 === 0, actions: assign({ evens: ({ context }) => context.evens + 1 }) } } },
        yes: { on: { TICK: { target: 'no', guard: ({ event }) => event.t % 2 === 1 } } },
      },
    },
    three: {
      initial: 'no',
      states: {
        no: { on: { TICK: { target: 'yes', guard: ({ event }) => event.t % 3 === 0, actions: assign({ threes: ({ context }) => context.threes + 1 }) } } },
        yes: { on: { TICK: { target: 'no', guard: ({ event }) => event.t % 3 !== 0 } } },
      },
    },
  },
});
