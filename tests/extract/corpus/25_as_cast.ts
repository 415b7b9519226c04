import { createMachine } from 'xstate';

export const traffic = createMachine(({
  id: 'traffic',
  initial: 'stop',
  states: {
    stop: { on: { GO: 'go' } } as any,
    go: { on: { STOP: 'stop' } },
  },
} as const) as any)!;
