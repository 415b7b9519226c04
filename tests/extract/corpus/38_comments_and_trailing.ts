import { createMachine } from 'xstate';

/** A machine with comments everywhere. */
export const commented = createMachine({
  // the id
  id: 'commented', /* inline */
  initial: 'a',
  states: {
    a: {
      on: {
        // go to b
        NEXT: 'b', // trailing
      },
    },
    b: {
      /* block */
      entry: [
        // first
        'first',
        'second', // second
      ],
    },
  },
});
