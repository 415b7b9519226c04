// events: [{"type": "E"}, {"type": "PUSH", "value": 7}, {"type": "DROP"}, {"type": "BOTH"}]
import { setup, assign } from 'xstate';

// assign functions that change `context` in place: XState keeps the mutated context
// (Object.assign({}, context, returned)), whether they return nothing or only some keys.
const machine = setup({
  actions: {
    inc: assign(({ context }) => { context.n = 2; }),
  },
}).createMachine({
  initial: 'a',
  context: { n: 1, items: [], gone: true },
  states: {
    a: { on: { E: { target: 'b', actions: 'inc' } } },
    b: {
      on: {
        PUSH: { actions: assign(({ context, event }) => { context.items.push(event.value); }) },
        DROP: { actions: assign(({ context }) => { delete context.gone; return undefined; }) },
        BOTH: { actions: assign(({ context }) => { context.n += 10; return { m: context.n }; }) },
      },
    },
  },
});
