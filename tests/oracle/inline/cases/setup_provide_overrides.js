// events: [{"type": "BUMP"}, {"type": "CHECK"}, {"type": "BUMP"}, {"type": "CHECK"}]
import { setup, assign } from 'xstate';

const machine = setup({
  actions: {
    bump: assign({ n: ({ context }) => context.n + 1 }),
    mark: assign({ marked: true }),
  },
  guards: { enough: ({ context }) => context.n >= 100 },
})
  .createMachine({
    id: 'provided',
    context: { n: 0, marked: false },
    initial: 'counting',
    states: {
      counting: {
        on: {
          BUMP: { actions: 'bump' },
          CHECK: { guard: 'enough', target: 'done', actions: 'mark' },
        },
      },
      done: {},
    },
  })
  .provide({
    actions: { bump: assign({ n: ({ context }) => context.n + 10 }) },
    guards: { enough: ({ context }) => context.n >= 20 },
  });
