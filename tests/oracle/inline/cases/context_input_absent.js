// events: []
import { createMachine } from 'xstate';

const machine = createMachine({
  id: 'noinput',
  initial: 'on',
  context: ({ input }) => ({ hasInput: input !== undefined, kind: typeof input, fallback: input?.x ?? 'none' }),
  states: { on: {} },
});
