// events: [{"type": "PING"}, {"type": "STOP"}, {"type": "MORE"}]
// A child machine written in place: XState shows it in the spawnChild action as its definition.
import { createMachine, spawnChild, stopChild, sendTo, assign, log } from 'xstate';

const machine = createMachine({
  id: 'parent',
  context: { pings: 0 },
  entry: [
    spawnChild(createMachine({
      id: 'kid',
      initial: 'idle',
      states: {
        idle: { on: { PING: { target: 'busy', actions: [log('ping'), 'record'] } }, tags: ['waiting'] },
        busy: { entry: assign({ busy: true }), on: { DONE: 'finished' } },
        finished: { type: 'final', output: { ok: true } },
      },
    }), { id: 'kid', input: { from: 'parent' } }),
    spawnChild(createMachine({ entry: 'hello', exit: [log('bye')], description: 'anonymous' })),
  ],
  on: {
    PING: { actions: [sendTo('kid', { type: 'PING' }), assign({ pings: ({ context }) => context.pings + 1 })] },
    STOP: { actions: stopChild('kid') },
    MORE: {
      actions: spawnChild(createMachine({ type: 'parallel', states: { a: {}, b: { on: { X: '.c' }, initial: 'c',
        states: { c: {} } } } }), { id: 'more', systemId: 'more' }),
    },
  },
});
