// events: [{"type": "INC"}]
// input: {"start": 10, "step": 5, "label": "tens"}
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'seeded',
  initial: 'on',
  context: ({ input }) => ({ count: input.start, step: input.step, name: input.label.toUpperCase() }),
  states: {
    on: { on: { INC: { actions: assign({ count: ({ context }) => context.count + context.step }) } } },
  },
});
