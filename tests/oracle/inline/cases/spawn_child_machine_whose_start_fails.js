// events: [{"type": "PING"}]
import { createMachine, assign, sendTo } from 'xstate';

// XState makes a spawned child machine at once and catches what its start throws into the
// child's own snapshot; the parent's trace goes on with the child's reference.
const machine = createMachine({
  id: 'parent',
  context: ({ spawn }) => ({
    child: spawn(createMachine({ context: () => { throw new Error('child start'); } }), { id: 'broken' })
  }),
  on: {
    PING: { actions: sendTo(({ context }) => context.child, { type: 'PING' }) }
  }
});
