// events: [{"type": "A_DONE"}, {"type": "B_DONE"}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'pair',
  initial: 'work',
  context: { a: 1, b: 2, summary: null },
  states: {
    work: {
      type: 'parallel',
      states: {
        ra: { initial: 'busy', states: { busy: { on: { A_DONE: 'done' } }, done: { type: 'final', output: ({ context }) => context.a * 100 } } },
        rb: { initial: 'busy', states: { busy: { on: { B_DONE: 'done' } }, done: { type: 'final' } } },
      },
      onDone: {
        target: 'end',
        guard: ({ event }) => event.type.startsWith('xstate.done.state'),
        actions: assign({ summary: ({ event, context }) => ({ type: event.type, out: event.output ?? 'none', total: context.a + context.b }) }),
      },
    },
    end: { type: 'final' },
  },
  output: ({ context }) => context.summary,
});
