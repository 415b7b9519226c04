import { createMachine } from 'xstate';

export const form = createMachine({
  id: 'form',
  description: 'A form with validation',
  initial: 'editing',
  states: {
    editing: {
      tags: ['form', 'editable'],
      meta: { title: 'Edit', fields: ['name', 'email'], limits: { max: 3, ratio: 0.5 } },
      on: { SUBMIT: { target: 'validating', description: 'Send the form', meta: { analytics: true } } },
    },
    validating: { tags: 'busy', on: { VALID: 'saved', INVALID: 'editing' } },
    saved: { type: 'final', description: `Saved` },
  },
});
