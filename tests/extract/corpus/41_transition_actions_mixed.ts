import { setup, assign, raise, log } from 'xstate';

const bump = assign({ n: ({ context }: any) => context.n + 1 });

export const mixed = setup({ actions: { named: () => {} } }).createMachine({
  id: 'mixed',
  context: { n: 0 },
  initial: 'a',
  states: {
    a: {
      on: {
        GO: {
          target: 'b',
          actions: ['named', bump, { type: 'named', params: { x: 1 } }, raise({ type: 'ARRIVED' }), log('go')],
        },
      },
    },
    b: { on: { ARRIVED: { actions: [bump, bump] } } },
  },
});
