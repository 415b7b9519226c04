import { createMachine } from 'xstate';

export const doorMachine = createMachine({
  id: 'door',
  initial: 'closed',
  states: {
    closed: { on: { OPEN: 'opened', LOCK: 'locked' } },
    opened: { on: { CLOSE: 'closed' } },
    locked: { on: { UNLOCK: 'closed' } },
  },
});

export const bulbMachine = createMachine({
  id: 'bulb',
  initial: 'off',
  states: { off: { on: { SWITCH: 'on' } }, on: { on: { SWITCH: 'off' } } },
});

export const fanMachine = createMachine({
  initial: 'low',
  states: { low: { on: { UP: 'high' } }, high: { on: { DOWN: 'low' } } },
});
