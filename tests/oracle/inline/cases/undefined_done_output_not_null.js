// events: [{"type": "FINISH"}]
import { createMachine } from 'xstate';

const machine = createMachine({
  id: 'undef',
  initial: 'working',
  states: {
    working: { on: { FINISH: 'done' } },
    done: { type: 'final' },
  },
  output: ({ event }) => ({
    isUndefined: event.output === undefined,
    isNull: event.output === null,
    fallback: event.output ?? 'none',
    kind: typeof event.output,
  }),
});
