import { setup } from 'xstate';

export const notifierMachine = setup({
  actions: { notify: () => {} },
})
  .createMachine({
    id: 'notify',
    initial: 'idle',
    states: { idle: { on: { PING: { actions: 'notify' } } } },
  })
  .provide({ actions: { notify: () => console.log('overridden') } });
