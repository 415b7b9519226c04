const { createMachine, assign } = require('xstate');

const machine = createMachine({
  id: 'cjs',
  initial: 'idle',
  context: { clicks: 0 },
  states: {
    idle: {
      on: {
        CLICK: {
          actions: assign({ clicks: ({ context }) => context.clicks + 1 }),
        },
        'done.invoke.x': 'idle',
      },
    },
  },
});

module.exports = { machine };
