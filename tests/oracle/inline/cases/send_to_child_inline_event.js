// events: [{"type": "PING", "n": 4}, {"type": "PING", "n": 9}]
import { setup, assign, sendTo, fromCallback } from 'xstate';

const machine = setup({
  actors: {
    echo: fromCallback(() => () => {}),
  },
}).createMachine({
  id: 'sender',
  initial: 'on',
  context: { sent: 0 },
  invoke: { id: 'echo', src: 'echo' },
  states: {
    on: {
      on: {
        PING: {
          actions: [
            assign({ sent: ({ context }) => context.sent + 1 }),
            sendTo('echo', ({ context, event }) => ({ type: 'ECHO', n: event.n, seq: context.sent })),
          ],
        },
      },
    },
  },
});
