import { setup, assign } from 'xstate';

const machineSetup = setup({
  guards: { hasItems: ({ context }) => context.items.length > 0 },
  actions: { clear: assign({ items: [] }) },
});

export const listA = machineSetup.createMachine({
  id: 'listA',
  context: { items: [] as string[] },
  initial: 'idle',
  states: { idle: { on: { CLEAR: { guard: 'hasItems', actions: 'clear' } } } },
});

export const listB = machineSetup.createMachine({
  id: 'listB',
  context: { items: ['x'] },
  on: { RESET: { actions: ['clear'] } },
});
