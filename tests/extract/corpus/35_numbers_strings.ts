import { createMachine } from 'xstate';

export const literals = createMachine({
  id: 'literals',
  context: {
    hex: 0xff,
    big: 1_000_000,
    exp: 1e3,
    neg: -5,
    frac: 0.25,
    str: 'it\'s',
    dq: "say \"hi\"",
    tpl: `line`,
    nl: 'a\nb',
    unicode: '\u00e9',
    t: true,
    f: false,
    n: null,
    list: [1, 'two', { three: 3 }],
    sum: 2 + 3 * 4,
    concat: 'a' + 'b',
  },
});
