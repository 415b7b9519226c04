import { createMachine } from 'xstate';

export default createMachine({
  id: 'defaultExport',
  initial: 'a',
  states: { a: { on: { NEXT: 'b' } }, b: { on: { PREV: 'a' } } },
});
