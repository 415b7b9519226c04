// events: [{"type": "E"}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'order',
  type: 'parallel',
  context: { trail: '' },
  states: {
    r1: { on: { E: { actions: assign({ trail: ({ context }) => context.trail + '1' }) } } },
    r2: { on: { E: { actions: assign({ trail: ({ context }) => context.trail + '2' }) } } },
    r3: {
      initial: 'x',
      states: {
        x: { on: { E: { target: 'y', actions: assign({ trail: ({ context }) => context.trail + '3' }) } } },
        y: { entry: assign({ trail: ({ context }) => context.trail + 'y' }) },
      },
    },
  },
});
