// events: [{"type": "SCORE", "points": 7}, {"type": "SCORE", "points": 20}]
import { createMachine, assign, raise } from 'xstate';

const machine = createMachine({
  id: 'scorer',
  initial: 'playing',
  context: { score: 0 },
  states: {
    playing: {
      on: {
        SCORE: {
          actions: [
            assign({ score: ({ context, event }) => context.score + event.points }),
            raise(({ context }) => ({ type: 'CHECK', total: context.score })),
          ],
        },
        CHECK: { target: 'won', guard: ({ event }) => event.total >= 20 },
      },
    },
    won: { type: 'final' },
  },
  output: ({ context }) => context.score,
});
