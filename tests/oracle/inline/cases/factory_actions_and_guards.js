// events: [{"type": "ADD"}, {"type": "ADD_MANY"}, {"type": "RENAME"}, {"type": "ADD"}, {"type": "ADD_MANY"}, {"type": "ADD_MANY"}, {"type": "RESET"}]
import { setup, assign, raise, and, not } from 'xstate';

const LIMIT = 12;
const BATCH = 4;

function addOne(step = 1) {
  return assign({ total: ({ context }) => context.total + step });
}
const addBatch = (size = BATCH) => assign({ total: ({ context }) => context.total + size, batches: ({ context }) => context.batches + 1 });
const renameTo = (size) => {
  const label = size;
  const upper = label + '!';
  return assign({ label: () => upper });
};
const under = (max) => ({ type: 'under', params: { max } });
const notice = (kind) => raise({ type: 'NOTICE', kind });
const resets = {
  toZero() {
    return assign({ total: 0, batches: 0 });
  },
};

const machine = setup({
  guards: { under: ({ context }, params) => context.total < params.max },
}).createMachine({
  id: 'counter',
  context: { total: 0, batches: 0, label: 'start', notices: 0 },
  on: {
    NOTICE: { actions: assign({ notices: ({ context }) => context.notices + 1 }) },
    RESET: { actions: resets.toZero() },
  },
  initial: 'counting',
  states: {
    counting: {
      on: {
        ADD: { guard: under(LIMIT), actions: addOne() },
        ADD_MANY: [
          { guard: and([under(LIMIT - BATCH + 1), not(under(1))]), actions: [addBatch(), notice('batch')] },
          { guard: under(LIMIT), actions: addOne() },
          { target: 'full' },
        ],
        RENAME: { actions: renameTo('counted') },
      },
    },
    full: { entry: notice('full') },
  },
});
