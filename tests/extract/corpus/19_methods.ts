import { createMachine } from 'xstate';

export const editor = createMachine({
  id: 'editor',
  initial: 'clean',
  context() {
    return { text: '' };
  },
  states: {
    clean: {
      entry() {
        console.log('clean');
      },
      on: { TYPE: 'dirty' },
    },
    dirty: {
      exit: function saveDraft() {
        console.log('save draft');
      },
      on: { SAVE: { target: 'clean', actions: [function notify() {}, async function upload() {}] } },
    },
  },
});
