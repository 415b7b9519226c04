// events: [{"type": "OK"}, {"type": "GO"}, {"type": "OK"}]
import { createMachine } from 'xstate';

const machine = createMachine({
  id: 'm',
  initial: 'a',
  context: { settings: null },
  states: {
    a: { on: { OK: 'b' } },
    b: { on: { GO: { target: 'a', guard: ({ context }) => context.settings.enabled } } },
  },
});
