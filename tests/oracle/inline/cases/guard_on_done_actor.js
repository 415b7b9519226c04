// events: [{"type": "xstate.done.actor.loader", "output": {"items": []}}, {"type": "RETRY"}, {"type": "xstate.done.actor.loader", "output": {"items": [1, 2, 3]}}]
import { setup, assign, fromPromise } from 'xstate';

const machine = setup({
  actors: { loader: fromPromise(async () => ({ items: [] })) },
}).createMachine({
  id: 'fetch',
  initial: 'loading',
  context: { items: [], attempts: 0 },
  states: {
    loading: {
      entry: assign({ attempts: ({ context }) => context.attempts + 1 }),
      invoke: {
        id: 'loader',
        src: 'loader',
        onDone: [
          { target: 'empty', guard: ({ event }) => event.output.items.length === 0 },
          { target: 'ready', actions: assign({ items: ({ event }) => event.output.items }) },
        ],
      },
    },
    empty: { on: { RETRY: 'loading' } },
    ready: { type: 'final' },
  },
  output: ({ context }) => ({ total: context.items.reduce((sum, item) => sum + item, 0), attempts: context.attempts }),
});
