import { createMachine, raise, sendTo, sendParent, cancel } from 'xstate';

export const pinger = createMachine({
  id: 'pinger',
  initial: 'waiting',
  states: {
    waiting: {
      entry: [
        raise({ type: 'TICK' }, { delay: 1000, id: 'tick' }),
        sendTo('ponger', { type: 'PING' }),
        sendTo('logger', ({ context }) => ({ type: 'LOG', context }), { delay: 50 }),
      ],
      on: {
        TICK: { actions: sendParent({ type: 'TICKED' }) },
        STOP: { actions: cancel('tick'), target: 'stopped' },
      },
    },
    stopped: { type: 'final' },
  },
});
