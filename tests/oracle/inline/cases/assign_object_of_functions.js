// events: [{"type": "MOVE", "dx": 2, "dy": -1}, {"type": "MOVE", "dx": -5, "dy": 4}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'point',
  initial: 'ready',
  context: { x: 0, y: 0, moves: 0 },
  states: {
    ready: {
      on: {
        MOVE: {
          actions: assign({
            x: ({ context, event }) => context.x + event.dx,
            y: ({ context, event }) => context.y + event.dy,
            moves: ({ context }) => context.moves + 1,
          }),
        },
      },
    },
  },
});
