// events: [{"type": "T", "a": 1, "b": 0}, {"type": "T", "a": 0, "b": 0}, {"type": "T", "a": 0, "b": 5}]
import { createMachine, and, or, not } from 'xstate';

const machine = createMachine({
  id: 'logic',
  initial: 's0',
  context: { limit: 3 },
  states: {
    s0: {
      on: {
        T: {
          target: 's1',
          guard: or([
            and([({ event }) => event.a > 0, not(({ event }) => event.b > 0)]),
            and([not(({ event }) => event.a > 0), ({ event, context }) => event.b > context.limit]),
          ]),
        },
      },
    },
    s1: {
      on: {
        T: { target: 's2', guard: and([({ event }) => event.a === 0, or([({ event }) => event.b === 0, () => false])]) },
      },
    },
    s2: {
      on: { T: { target: 's0', guard: not(or([({ event }) => event.a > 0, ({ event }) => event.b < 5])) } },
    },
  },
});
