// events: [{"type": "ANSWER", "value": 42}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'quiz',
  initial: 'asking',
  context: { result: null, asked: 'life' },
  states: {
    asking: {
      initial: 'question',
      states: {
        question: { on: { ANSWER: { target: 'answered', actions: assign({ result: ({ event }) => event.value }) } } },
        answered: { type: 'final', output: ({ context }) => ({ topic: context.asked, answer: context.result * 2 }) },
      },
      onDone: {
        target: 'review',
        actions: assign({ result: ({ event }) => event.output }),
      },
    },
    review: {},
  },
});
