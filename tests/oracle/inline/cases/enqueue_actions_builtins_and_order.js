// events: [{"type": "RUN", "label": "x"}, {"type": "STOP"}]
import { createMachine, enqueueActions } from 'xstate';

const machine = createMachine({
  id: 'enqorder',
  initial: 'idle',
  context: { log: [] },
  states: {
    idle: {
      entry: enqueueActions(({ enqueue }) => {
        enqueue('entered');
        enqueue.raise({ type: 'TIMEOUT' }, { delay: 100, id: 'timer' });
      }),
      on: {
        RUN: {
          actions: enqueueActions(({ context, event, enqueue }) => {
            enqueue.assign({ log: [...context.log, 'first'] });
            enqueue.assign(({ context }) => ({ log: [...context.log, 'second:' + context.log.length] }));
            enqueue.cancel('timer');
            enqueue.emit(({ context }) => ({ type: 'logged', size: context.log.length }));
            enqueue.raise({ type: 'NEXT', label: event.label });
            enqueue(function namedInline() {});
          }),
        },
        NEXT: { target: 'running', actions: enqueueActions(({ event, enqueue }) => enqueue({ type: 'got', params: { label: event.label } })) },
      },
    },
    running: { on: { STOP: { target: 'idle', actions: enqueueActions(({ enqueue }) => { enqueue.assign({ log: [] }); }) } } },
  },
});
