// events: [{"type": "GO"}]
// input: {"items": ["a", "b"]}
import { createMachine } from 'xstate';

const machine = createMachine({
  id: 'defaults',
  initial: 'check',
  context: ({ input }) => ({ items: input.items ?? [], limit: input.limit ?? 3, first: input.items?.[0] ?? null }),
  states: {
    check: { on: { GO: [{ target: 'few', guard: ({ context }) => context.items.length < context.limit }, { target: 'many' }] } },
    few: {}, many: {},
  },
});
