// events: [{"type": "NEXT", "ok": true}, {"type": "BUMP"}, {"type": "NEXT", "ok": false}, {"type": "NEXT", "ok": true}]
import { setup, assign, and } from 'xstate';

const machine = setup({
  guards: {
    isPositive: ({ context }) => context.count > 0,
  },
}).createMachine({
  id: 'mixed',
  initial: 'one',
  context: { count: 0 },
  states: {
    one: {
      on: {
        BUMP: { actions: assign({ count: ({ context }) => context.count + 1 }) },
        NEXT: { target: 'two', guard: and(['isPositive', ({ event }) => event.ok]) },
      },
    },
    two: {},
  },
});
