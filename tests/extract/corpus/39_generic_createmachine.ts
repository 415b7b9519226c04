import { createMachine } from 'xstate';

interface Context { value: string }
type Events = { type: 'CHANGE'; value: string } | { type: 'CLEAR' };

export const input = createMachine<Context, Events>({
  id: 'input',
  context: { value: '' },
  on: {
    CHANGE: { actions: 'change' },
    CLEAR: { actions: ['clear', 'focus'] },
  },
} as any);
