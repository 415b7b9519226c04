// events: [{"type": "READ"}]
// Reading the snapshot while the actor computes its initial snapshot throws; XState catches that
// into an error snapshot, and that snapshot is what `self.getSnapshot()` gives later.
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  context: { count: 3 },
  entry: assign(({ self }) => {
    let status = 'unread';
    try {
      status = self.getSnapshot().status;
    } catch (error) {
      status = 'threw';
    }
    return { status };
  }),
  on: {
    READ: {
      actions: assign(({ self }) => ({ inner: self.getSnapshot().status, count: self.getSnapshot().context.count + 1,
        statusThen: self.getSnapshot().context.status })),
    },
  },
});
