// events: [{"type": "WEIRD"}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'weird',
  initial: 'on',
  context: { nan: 0, inf: 0, list: [], nested: null, flag: true, text: 'x' },
  states: {
    on: {
      on: {
        WEIRD: {
          actions: assign({
            nan: () => 0 / 0,
            inf: () => 1 / 0,
            list: () => [1, null, 'two', [3], { four: 4 }],
            nested: () => ({ a: { b: { c: [true, false] } } }),
            flag: ({ context }) => !context.flag,
            text: () => 'tab\tquote"\\ unicode \u00e9 \ud83d\ude00',
          }),
        },
      },
    },
  },
});
