import { setup, spawnChild, stopChild, fromCallback } from 'xstate';

export const supervisor = setup({
  actors: { worker: fromCallback(() => () => {}) },
}).createMachine({
  id: 'supervisor',
  initial: 'running',
  states: {
    running: {
      entry: spawnChild('worker', { id: 'w1', input: { n: 1 }, systemId: 'main-worker' }),
      on: { STOP: { target: 'stopped', actions: stopChild('w1') } },
    },
    stopped: { entry: stopChild(({ context }: any) => context.ref) },
  },
});
