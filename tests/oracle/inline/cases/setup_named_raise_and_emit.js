// events: [{"type": "GO", "n": 2}]
import { setup, assign, raise, emit } from 'xstate';

const machine = setup({
  actions: {
    announce: emit(({ context }) => ({ type: 'announced', at: context.n })),
    kick: raise(({ event }) => ({ type: 'KICKED', n: event.n * 3 })),
  },
}).createMachine({
  id: 'kicker',
  initial: 'idle',
  context: { n: 0 },
  states: {
    idle: { on: { GO: { actions: 'kick' }, KICKED: { target: 'kicked', actions: [assign({ n: ({ event }) => event.n }), 'announce'] } } },
    kicked: {},
  },
});
