import { setup } from 'xstate';

const SECOND = 1000;
const TIMEOUT = 30 * SECOND;

export const session = setup({
  delays: {
    idleTimeout: TIMEOUT,
    warn: ({ context }) => context.warnAfter,
  },
}).createMachine({
  id: 'session',
  initial: 'active',
  context: { warnAfter: 20 * SECOND },
  states: {
    active: {
      after: { warn: 'warning', [TIMEOUT]: 'expired' },
      on: { ACTIVITY: { target: 'active', reenter: true } },
    },
    warning: { after: { 5000: { target: 'expired', actions: 'logout' } }, on: { ACTIVITY: 'active' } },
    expired: { type: 'final' },
  },
});
