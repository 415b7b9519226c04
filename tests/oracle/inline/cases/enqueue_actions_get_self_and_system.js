// events: [{"type": "AGAIN"}]
// XState's enqueueActions hands its body `self` and `system` too (the call's inert actor and system).
import { createMachine, enqueueActions, spawnChild, fromCallback } from 'xstate';

const machine = createMachine({
  context: {},
  entry: [
    spawnChild(fromCallback(() => {}), { id: 'worker', systemId: 'registered' }),
    enqueueActions(({ enqueue, self, system }) => {
      self.send({ type: 'IGNORED' });
      const worker = system.get('registered');
      enqueue.assign({ found: worker === undefined ? 'missing' : worker.id, self: typeof self.id });
      if (worker !== undefined) enqueue.sendTo(worker, { type: 'HELLO' });
    }),
  ],
  on: {
    AGAIN: {
      actions: enqueueActions(({ enqueue, system, self }) => {
        enqueue.assign({ later: system.get('registered') === undefined ? 'missing' : 'found',
          initial: self.getSnapshot().context.found === undefined ? 'none' : self.getSnapshot().context.found });
      }),
    },
  },
});
