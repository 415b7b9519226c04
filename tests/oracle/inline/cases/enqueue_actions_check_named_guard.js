// events: [{"type": "GO"}, {"type": "GO"}, {"type": "GO"}]
import { setup, enqueueActions } from 'xstate';

const machine = setup({
  guards: {
    isEven: ({ context }) => context.n % 2 === 0,
    over: ({ context }, params) => context.n > params.limit,
  },
}).createMachine({
  id: 'enqcheck',
  initial: 'on',
  context: { n: 0 },
  states: {
    on: {
      on: {
        GO: {
          actions: enqueueActions(({ context, enqueue, check }) => {
            if (check('isEven')) {
              enqueue.emit({ type: 'even', n: context.n });
            }
            if (check({ type: 'over', params: { limit: 1 } })) {
              enqueue.raise({ type: 'TOO_BIG' });
            }
            if (check(({ context }) => context.n === 1)) {
              enqueue({ type: 'sawOne', params: { n: context.n } });
            }
            enqueue.assign({ n: ({ context }) => context.n + 1 });
          }),
        },
        TOO_BIG: 'big',
      },
    },
    big: {},
  },
});
