// events: [{"type": "INC"}, {"type": "INC"}]
import { createMachine, assign, emit } from 'xstate';

const machine = createMachine({
  id: 'notifier',
  initial: 'on',
  context: { count: 0 },
  states: {
    on: {
      on: {
        INC: {
          actions: [
            assign({ count: ({ context }) => context.count + 1 }),
            emit(({ context }) => ({ type: 'changed', count: context.count, even: context.count % 2 === 0 })),
          ],
        },
      },
    },
  },
});
