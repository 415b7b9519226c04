import { createMachine, type MachineConfig } from 'xstate';

const config = {
  id: 'light',
  initial: 'green',
  states: {
    green: { after: { 3000: 'yellow' } },
    yellow: { after: { 1000: 'red' } },
    red: { after: { 4000: 'green' } },
  },
} satisfies MachineConfig<any, any>;

export const lightMachine = createMachine(config);
