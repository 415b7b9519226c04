// events: [{"type": "START"}]
import { createMachine, assign, raise } from 'xstate';

const machine = createMachine({
  id: 'm',
  initial: 'a',
  context: { step: 0 },
  states: {
    a: {
      on: {
        START: { target: 'b', actions: [assign({ step: 1 }), raise({ type: 'NEXT' })] },
      },
    },
    b: {
      on: {
        NEXT: { actions: assign({ step: ({ context }) => { if (context.step === 1) throw new Error('step 1 cannot advance'); return 2; } }) },
      },
    },
  },
});
