import { setup, and, or, not, stateIn } from 'xstate';

export const gate = setup({
  guards: {
    isAdmin: ({ context }) => context.role === 'admin',
    isOwner: ({ context, event }) => context.user === event.owner,
    isLocked: () => false,
  },
}).createMachine({
  id: 'gate',
  type: 'parallel',
  context: { role: 'user', user: 'a' },
  states: {
    door: {
      initial: 'shut',
      states: {
        shut: {
          on: {
            OPEN: [
              { guard: and(['isAdmin', not('isLocked')]), target: 'open' },
              { guard: or(['isOwner', stateIn('#gate.alarm.off')]), target: 'open' },
              { guard: { type: 'isOwner', params: { strict: true } }, target: 'open' },
            ],
          },
        },
        open: { on: { SHUT: 'shut' } },
      },
    },
    alarm: {
      initial: 'off',
      states: { off: { id: 'off', on: { ARM: 'on' } }, on: { on: { DISARM: { target: 'off', guard: stateIn({ door: 'shut' }) } } } },
    },
  },
});
