// events: [{"type": "ADD", "n": 3}, {"type": "ADD", "n": 4}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'reach',
  initial: 'collect',
  context: { sum: 0 },
  states: {
    collect: {
      on: { ADD: { actions: assign({ sum: ({ context, event }) => context.sum + event.n }) } },
      always: { target: 'enough', guard: ({ context }) => context.sum >= 7 },
    },
    enough: { type: 'final', output: ({ context }) => ({ reached: context.sum }) },
  },
  output: ({ context, event }) => ({ machine: context.sum, final: event.output }),
});
