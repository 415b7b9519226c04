import { createMachine, fromPromise, assign } from 'xstate';

export const loader = createMachine({
  id: 'loader',
  initial: 'loading',
  context: { items: [] as string[], error: null as unknown },
  states: {
    loading: {
      invoke: {
        id: 'fetchItems',
        src: fromPromise(async () => ['a', 'b']),
        onDone: { target: 'ready', actions: assign({ items: ({ event }) => event.output }) },
        onError: { target: 'failed', actions: assign({ error: ({ event }) => event.error }) },
      },
    },
    ready: {},
    failed: { on: { RETRY: 'loading' } },
  },
});
