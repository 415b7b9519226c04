// events: [{"type": "PARSE", "text": "order-42 shipped 2024-03-05"}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'parser',
  initial: 'idle',
  context: { order: null, date: null, words: 0 },
  states: {
    idle: {
      on: {
        PARSE: {
          guard: ({ event }) => /order-\d+/.test(event.text),
          actions: assign(({ event }) => ({
            order: Number(event.text.match(/order-(\d+)/)[1]),
            date: new Date(Date.UTC(2024, 2, 5)).toISOString().slice(0, 10) === event.text.slice(-10) ? 'match' : 'no',
            words: event.text.split(/\s+/).length,
          })),
        },
      },
    },
  },
});
