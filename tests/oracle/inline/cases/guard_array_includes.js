// events: [{"type": "LOGIN", "role": "guest"}, {"type": "LOGIN", "role": "admin"}]
import { createMachine } from 'xstate';

const machine = createMachine({
  id: 'door',
  initial: 'out',
  context: { allowed: ['admin', 'editor'] },
  states: {
    out: { on: { LOGIN: { target: 'in', guard: ({ context, event }) => context.allowed.includes(event.role) } } },
    in: { tags: ['authenticated'] },
  },
});
