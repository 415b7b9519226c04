import { createMachine } from 'xstate';

const EVENTS = { open: 'OPEN', close: 'CLOSE' } as const;
const PREFIX = 'menu';
const OPENED = `${PREFIX}Opened`;

export const menu = createMachine({
  id: 'menu',
  initial: 'closed',
  states: {
    closed: { on: { [EVENTS.open]: OPENED } },
    [OPENED]: { on: { [EVENTS.close]: 'closed', 'menu.*': { actions: 'track' } } },
  },
});
