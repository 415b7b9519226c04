// events: [{"type": "ADD"}, {"type": "ADD"}, {"type": "TELL", "index": 1}, {"type": "DROP"}, {"type": "FINISH"}]
import { createMachine, assign, sendTo, stopChild, fromPromise, fromCallback } from 'xstate';

// spawn in assign without an id (session ids), references kept in a list, sent to and stopped
// through context; the output gets `self`.
const worker = fromPromise(async () => 1);
const machine = createMachine({
  id: 'pool',
  initial: 'open',
  context: { workers: [], told: 0 },
  states: {
    open: {
      on: {
        ADD: {
          actions: assign({
            workers: ({ context, spawn }) => [...context.workers, spawn(worker, { input: context.workers.length })]
          })
        },
        TELL: {
          actions: [
            sendTo(({ context, event }) => context.workers[event.index], ({ event }) => ({ type: 'WORK', index: event.index })),
            assign({ told: ({ context }) => context.told + 1 })
          ]
        },
        DROP: { actions: stopChild(({ context }) => context.workers[0]) },
        FINISH: 'done'
      },
      entry: assign({ listener: ({ spawn }) => spawn(fromCallback(() => () => {}), { id: 'listener' }) })
    },
    done: { type: 'final' }
  },
  output: ({ context, self }) => ({ count: context.workers.length, me: self })
});
