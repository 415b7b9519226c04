// events: [{"type": "RENAME", "first": "Grace"}, {"type": "ADDRESS", "city": "Arlington"}]
import { createMachine, assign } from 'xstate';

const machine = createMachine({
  id: 'profile',
  initial: 'view',
  context: { person: { name: { first: 'Ada', last: 'L' }, address: { city: 'London', zip: 'N1' } } },
  states: {
    view: {
      on: {
        RENAME: {
          actions: assign({
            person: ({ context, event }) => ({ ...context.person, name: { ...context.person.name, first: event.first } }),
          }),
        },
        ADDRESS: {
          actions: assign(({ context, event }) => ({
            person: { ...context.person, address: { city: event.city } },
            moved: true,
          })),
        },
      },
    },
  },
});
