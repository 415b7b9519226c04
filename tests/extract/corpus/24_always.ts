import { createMachine } from 'xstate';

export const thermostat = createMachine({
  id: 'thermostat',
  initial: 'check',
  context: { temp: 20 },
  states: {
    check: {
      always: [
        { guard: ({ context }) => context.temp < 18, target: 'heating' },
        { guard: ({ context }) => context.temp > 24, target: 'cooling' },
        { target: 'idle' },
      ],
    },
    heating: { on: { WARM: 'check' } },
    cooling: { on: { COOL: 'check' } },
    idle: { always: { guard: 'shouldRecheck', target: 'check' } },
  },
});
