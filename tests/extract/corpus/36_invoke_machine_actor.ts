import { createMachine, setup, sendTo } from 'xstate';

const childMachine = createMachine({
  id: 'child',
  initial: 'working',
  states: { working: { on: { FINISH: 'done' } }, done: { type: 'final' } },
});

export const parentMachine = setup({
  actors: { child: childMachine },
}).createMachine({
  id: 'parent',
  initial: 'running',
  states: {
    running: {
      invoke: { id: 'kid', src: 'child', onDone: 'finished' },
      on: { STOP_CHILD: { actions: sendTo('kid', { type: 'FINISH' }) } },
    },
    finished: { type: 'final' },
  },
});
