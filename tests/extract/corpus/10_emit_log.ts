import { setup, emit, log } from 'xstate';

export const notifier = setup({}).createMachine({
  id: 'notifier',
  initial: 'quiet',
  states: {
    quiet: {
      on: {
        NOTIFY: {
          actions: [
            emit({ type: 'notified' }),
            emit(({ event }) => ({ type: 'echo', value: event })),
            log('notifying'),
            log(({ context }) => context, 'context'),
            log(),
          ],
        },
      },
    },
  },
});
