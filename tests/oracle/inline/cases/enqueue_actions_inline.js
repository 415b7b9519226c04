// events: [{"type": "TICK"}, {"type": "TICK"}, {"type": "TICK"}]
import { createMachine, enqueueActions } from 'xstate';

const machine = createMachine({
  id: 'enq',
  initial: 'on',
  context: { count: 0 },
  states: {
    on: {
      on: {
        TICK: {
          actions: enqueueActions(({ context, enqueue }) => {
            enqueue.assign({ count: context.count + 1 });
            if (context.count % 2 === 1) {
              enqueue.raise({ type: 'ODD_SEEN' });
            }
            enqueue('tick');
          }),
        },
        ODD_SEEN: { actions: 'noteOdd' },
      },
    },
  },
});
