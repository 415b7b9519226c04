// Initial data computed from module constants, as board-game machines write it.
import { setup, assign } from 'xstate';

const board = { columns: 7, rows: 6 };
const CELLS = board.columns * board.rows;

export const connectFourMachine = setup({
  types: {} as { context: { cells: (string | null)[]; middle: number; turns: number; limit: number } },
  guards: { full: ({ context }) => context.turns >= context.limit },
}).createMachine({
  id: 'connectFour',
  context: {
    cells: Array(CELLS).fill(null),
    middle: Math.floor(board.columns / 2),
    turns: 0,
    limit: Math.min(CELLS, 40),
  },
  initial: 'playing',
  states: {
    playing: {
      always: { guard: 'full', target: 'draw' },
      on: { DROP: { actions: assign({ turns: ({ context }) => context.turns + 1 }) } },
    },
    draw: { type: 'final' },
  },
});
