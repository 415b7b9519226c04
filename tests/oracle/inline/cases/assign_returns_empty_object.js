// events: [{"type": "NOOP"}, {"type": "PARTIAL"}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'partial',
  initial: 'on',
  context: { a: 1, b: 2 },
  states: {
    on: {
      on: {
        NOOP: { actions: assign(() => ({})) },
        PARTIAL: { actions: assign(({ context }) => ({ b: context.a + context.b })) },
      },
    },
  },
});
