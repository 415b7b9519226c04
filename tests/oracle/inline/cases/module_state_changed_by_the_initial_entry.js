// events: [{"type": "READ"}, {"type": "READ"}]
// XState's pure transition makes an actor per call, whose constructor computes the machine's initial
// snapshot: code of the initial step that changes module state runs again on every call.
import { createMachine, assign } from 'xstate';

const seen = [];
const machine = createMachine({
  context: { n: 0 },
  entry: assign(() => { seen.push('entry'); return {}; }),
  on: { READ: { actions: assign({ n: () => seen.length }) } },
});
