import { createMachine } from 'xstate';

export const machines = {
  first: createMachine({ id: 'first', initial: 'x', states: { x: {} } }),
  second: createMachine({ id: 'second', initial: 'y', states: { y: { on: { Z: 'z' } }, z: {} } }),
};
