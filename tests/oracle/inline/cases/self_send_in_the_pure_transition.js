// events: [{"type": "PING"}, {"type": "PING"}]
// `self.send` in XState's pure transition leaves the event with an actor that never starts.
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  initial: 'idle',
  context: { sent: 0 },
  entry: assign(({ self }) => {
    self.send({ type: 'GO' });
    return { sent: 1 };
  }),
  states: {
    idle: {
      on: {
        GO: 'gone',
        PING: {
          actions: assign(({ context, self }) => {
            self.send({ type: 'GO' });
            return { sent: context.sent + 1 };
          }),
        },
      },
    },
    gone: {},
  },
});
