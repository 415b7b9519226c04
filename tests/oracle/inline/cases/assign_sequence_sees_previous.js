// events: [{"type": "GO"}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'seq',
  initial: 'a',
  context: { n: 1, log: [] },
  states: {
    a: {
      on: {
        GO: {
          target: 'b',
          actions: [
            assign({ n: ({ context }) => context.n * 10 }),
            assign({ log: ({ context }) => [...context.log, 'after first: ' + context.n] }),
            assign(({ context }) => ({ n: context.n + 5, log: [...context.log, 'second'] })),
          ],
        },
      },
      exit: assign({ log: ({ context }) => [...context.log, 'exit a at ' + context.n] }),
    },
    b: { entry: assign({ log: ({ context }) => [...context.log, 'enter b at ' + context.n] }) },
  },
});
