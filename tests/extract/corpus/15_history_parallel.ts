import { createMachine } from 'xstate';

export const player = createMachine({
  id: 'player',
  type: 'parallel',
  states: {
    playback: {
      initial: 'paused',
      states: {
        paused: { on: { PLAY: 'playing' } },
        playing: { on: { PAUSE: 'paused' } },
        hist: { type: 'history', history: 'shallow' },
      },
      on: { RESUME: '.hist' },
    },
    volume: {
      initial: 'normal',
      states: {
        normal: { on: { MUTE: 'muted' } },
        muted: { on: { UNMUTE: 'normal' } },
        deepHist: { type: 'history', history: 'deep', target: 'normal' },
      },
    },
  },
});
