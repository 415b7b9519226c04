import { createMachine, assign } from 'xstate';

function createFetcher(url: string) {
  return createMachine({
    id: 'fetcher',
    initial: 'idle',
    context: { data: null as unknown, url: '' },
    states: {
      idle: { on: { FETCH: 'loading' } },
      loading: {
        entry: assign({ url: () => url }),
        on: {
          RESOLVE: { target: 'success', actions: assign({ data: ({ event }: any) => event.data }) },
          REJECT: 'failure',
        },
      },
      success: { type: 'final' },
      failure: { on: { RETRY: 'loading' } },
    },
  });
}

export const usersFetcher = createFetcher('/api/users');
