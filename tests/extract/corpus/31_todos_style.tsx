import { assign, setup } from 'xstate';

type Todo = { id: string; title: string; completed: boolean };

export const todosMachine = setup({
  types: {
    context: {} as { todo: string; todos: Todo[]; filter: 'all' | 'active' | 'completed' },
  },
}).createMachine({
  id: 'todos',
  context: { todo: '', todos: [], filter: 'all' },
  on: {
    'newTodo.change': { actions: assign({ todo: ({ event }: any) => event.value }) },
    'newTodo.commit': {
      guard: ({ event }: any) => event.value.trim().length > 0,
      actions: assign({
        todo: '',
        todos: ({ context, event }: any) => [...context.todos, { id: String(Date.now()), title: event.value.trim(), completed: false }],
      }),
    },
    'todo.delete': { actions: assign({ todos: ({ context, event }: any) => context.todos.filter((t: Todo) => t.id !== event.id) }) },
    'filter.change': { actions: assign({ filter: ({ event }: any) => event.filter }) },
  },
});
