import { createMachine } from 'xstate';

const common = {
  on: { CANCEL: '#wizard.cancelled' },
} as const;

const steps = {
  one: { ...common, on: { ...common.on, NEXT: 'two' } },
  two: { ...common, on: { ...common.on, NEXT: 'three', BACK: 'one' } },
  three: { ...common, on: { ...common.on, BACK: 'two', FINISH: 'done' } },
};

export const wizard = createMachine({
  id: 'wizard',
  initial: 'one',
  states: {
    ...steps,
    done: { type: 'final' },
    cancelled: { type: 'final' },
  },
});
