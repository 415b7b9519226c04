// events: [{"type": "CHECK"}]
// XState's pure transition has a fresh system per call: `system.get` finds an actor registered
// under a system id by the same call only.
import { createMachine, assign, spawnChild, fromCallback } from 'xstate';

const machine = createMachine({
  context: { found: null, later: null },
  entry: [
    spawnChild(fromCallback(() => {}), { id: 'worker', systemId: 'registered' }),
    assign({
      found: ({ system }) => {
        const actor = system.get('registered');
        return actor === undefined ? 'missing' : actor.id;
      },
      all: ({ system }) => Object.keys(system.getAll()),
    }),
  ],
  on: {
    CHECK: {
      actions: assign({
        later: ({ system }) => (system.get('registered') === undefined ? 'missing' : 'found'),
      }),
    },
  },
});
