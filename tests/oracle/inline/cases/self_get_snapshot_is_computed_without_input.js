// events: [{"type": "READ"}]
// input: {"start": 5}
// The inert actor's snapshot is computed without input: the context factory sees none.
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  context: ({ input }) => ({ start: input === undefined ? -1 : input.start }),
  on: {
    READ: { actions: assign({ seen: ({ self }) => self.getSnapshot().context.start }) },
  },
});
