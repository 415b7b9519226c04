// events: [{"type": "HELLO", "who": "world"}]
import { createMachine, log } from 'xstate';

const machine = createMachine({
  id: 'logger',
  initial: 'on',
  context: { greeting: 'hello' },
  states: {
    on: {
      on: {
        HELLO: { actions: log(({ context, event }) => `${context.greeting}, ${event.who}`, 'greet') },
      },
    },
  },
});
