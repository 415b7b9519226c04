// events: [{"type": "PICK", "n": 3}, {"type": "AGAIN"}, {"type": "PICK", "n": 8}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'picker',
  initial: 'choosing',
  context: { history: [] },
  states: {
    choosing: {
      initial: 'open',
      states: {
        open: { on: { PICK: { target: 'closed', actions: assign({ history: ({ context, event }) => [...context.history, event.n] }) } } },
        closed: { type: 'final', output: ({ context }) => ({ last: context.history[context.history.length - 1] }) },
      },
      onDone: [
        { target: 'small', guard: ({ event }) => event.output.last < 5 },
        { target: 'large' },
      ],
    },
    small: { on: { AGAIN: 'choosing' } },
    large: { type: 'final' },
  },
  output: ({ context }) => context.history,
});
