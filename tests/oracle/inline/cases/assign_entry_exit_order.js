// events: [{"type": "NEXT"}, {"type": "NEXT"}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'order',
  initial: 'a',
  context: { trail: [] },
  entry: assign({ trail: ({ context }) => [...context.trail, 'root'] }),
  states: {
    a: {
      entry: assign({ trail: ({ context }) => [...context.trail, 'enter a'] }),
      exit: assign({ trail: ({ context }) => [...context.trail, 'exit a'] }),
      on: { NEXT: { target: 'b', actions: assign({ trail: ({ context }) => [...context.trail, 'a->b'] }) } },
    },
    b: {
      initial: 'b1',
      entry: assign({ trail: ({ context }) => [...context.trail, 'enter b'] }),
      states: {
        b1: {
          entry: assign({ trail: ({ context }) => [...context.trail, 'enter b1'] }),
          on: { NEXT: { target: '#order.a', actions: assign({ trail: ({ context }) => [...context.trail, 'b1->a'] }) } },
        },
      },
      exit: assign({ trail: ({ context }) => [...context.trail, 'exit b'] }),
    },
  },
});
