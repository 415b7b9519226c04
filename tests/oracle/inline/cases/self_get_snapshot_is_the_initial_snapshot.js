// events: [{"type": "INC"}, {"type": "INC"}, {"type": "GO"}, {"type": "INC"}, {"type": "READ"}]
// XState's pure transition: `self` is an actor made for the call and never started; its snapshot
// is the machine's initial snapshot (computed when it was made), whatever snapshot is given.
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'reader',
  initial: 'a',
  context: { n: 0, seen: null },
  states: {
    a: {
      tags: ['start'],
      on: { GO: 'b' },
    },
    b: {
      tags: ['later'],
      entry: assign({
        seen: ({ self }) => {
          const snapshot = self.getSnapshot();
          return {
            n: snapshot.context.n,
            value: snapshot.value,
            status: snapshot.status,
            inA: snapshot.matches('a'),
            inB: snapshot.matches('b'),
            start: snapshot.hasTag('start'),
            later: snapshot.hasTag('later'),
            output: snapshot.output === undefined,
            children: Object.keys(snapshot.children),
            same: self.getSnapshot() === snapshot,
          };
        },
      }),
      on: { READ: { actions: assign({ again: ({ self }) => self.getSnapshot().context.n }) } },
    },
  },
  on: { INC: { actions: assign({ n: ({ context }) => context.n + 1 }) } },
});
