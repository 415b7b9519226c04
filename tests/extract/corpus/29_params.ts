import { setup } from 'xstate';

export const greeter = setup({
  actions: { greet: (_, params: { name: string }) => console.log(params.name) },
  guards: { above: (_, params: { min: number }) => params.min > 0 },
}).createMachine({
  id: 'greeter',
  context: { name: 'Ada' },
  entry: { type: 'greet', params: { name: 'World' } },
  on: {
    HELLO: {
      guard: { type: 'above', params: { min: 3 } },
      actions: { type: 'greet', params: ({ context }) => ({ name: context.name }) },
    },
  },
});
