// events: [{"type": "WIN", "points": 3}]
import { createMachine } from 'xstate';

const machine = createMachine({
  id: 'game',
  initial: 'playing',
  context: { player: 'p1' },
  states: {
    playing: { on: { WIN: { target: 'won', actions: [] } } },
    won: { type: 'final', output: ({ context, event }) => ({ winner: context.player, points: event.points }) },
  },
  output: ({ context, event }) => ({ fromEvent: event.output ?? null, eventType: event.type, player: context.player }),
});
