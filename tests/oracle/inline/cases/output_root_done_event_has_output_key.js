// events: [{"type": "GO"}]
import { createMachine } from 'xstate';

// XState's createDoneStateEvent always sets `output` (undefined for a final state without one):
// the root's output code sees `'output' in event` as true.
const machine = createMachine({
  initial: 'a',
  output: ({ event }) => ({ hasOutput: 'output' in event, type: event.type, isUndefined: event.output === undefined }),
  states: {
    a: { on: { GO: 'b' } },
    b: { type: 'final' },
  },
});
