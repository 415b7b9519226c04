// events: [{"type": "LOAD", "id": 7}, {"type": "LOADED", "data": {"title": "T"}}, {"type": "EDIT", "title": "New"}, {"type": "SAVE"}]
import { setup, assign } from 'xstate';

const machine = setup({
  guards: {
    hasData: ({ context }) => context.data !== null,
  },
  actions: {
    storeData: assign({ data: ({ event }) => event.data }),
    track: () => {},
  },
}).createMachine({
  id: 'editor',
  initial: 'idle',
  context: { id: null, data: null, dirty: false },
  states: {
    idle: { on: { LOAD: { target: 'loading', actions: assign({ id: ({ event }) => event.id }) } } },
    loading: { on: { LOADED: { target: 'ready', actions: ['storeData', 'track'] } } },
    ready: {
      initial: 'clean',
      states: {
        clean: { on: { EDIT: { target: 'dirty', actions: assign({ data: ({ context, event }) => ({ ...context.data, title: event.title }), dirty: true }) } } },
        dirty: {
          on: { SAVE: [{ target: '#editor.saved', guard: 'hasData', actions: 'track' }, { target: 'clean' }] },
        },
      },
    },
    saved: { type: 'final' },
  },
  output: ({ context }) => ({ id: context.id, title: context.data.title }),
});
