// The action helpers a setup() result offers, used outside the machine config: a media player
// whose actions are declared once with the setup's types and reused across states.
import { setup, assign, fromPromise } from 'xstate';

interface PlayerContext {
  track: string | null;
  volume: number;
  history: string[];
}

type PlayerEvent =
  | { type: 'LOAD'; track: string }
  | { type: 'PLAY' }
  | { type: 'PAUSE' }
  | { type: 'VOLUME'; level: number }
  | { type: 'STOP' };

const player = setup({
  types: {} as { context: PlayerContext; events: PlayerEvent; emitted: { type: 'played'; track: string } },
  actors: {
    loadTrack: fromPromise(async ({ input }: { input: { track: string } }) => input.track),
  },
  guards: {
    hasTrack: ({ context }) => context.track !== null,
    loud: ({ context }, params: { above: number }) => context.volume > params.above,
  },
  delays: { fadeOut: 750 },
});

const rememberTrack = player.assign({
  track: ({ event }) => (event.type === 'LOAD' ? event.track : null),
  history: ({ context, event }) => (event.type === 'LOAD' ? [...context.history, event.track] : context.history),
});
const setVolume = player.createAction(
  assign({ volume: ({ event }) => (event.type === 'VOLUME' ? event.level : 0) }),
);
const announce = player.createAction(({ context }) => {
  console.log('now playing', context.track);
});
const played = player.emit(({ context }) => ({ type: 'played', track: context.track ?? '' }));
const trace = player.log(({ event }) => `event ${event.type}`, 'player');
const autoPause = player.raise({ type: 'PAUSE' }, { delay: 'fadeOut', id: 'auto-pause' });
const keepPlaying = player.cancel('auto-pause');
const startMeter = player.spawnChild('loadTrack', { id: 'meter', input: { track: 'meter' } });
const stopMeter = player.stopChild('meter');
const notifyMeter = player.sendTo('meter', { type: 'TICK' });
const tidy = player.enqueueActions(({ enqueue, check }) => {
  if (check('hasTrack')) {
    enqueue('announce');
  }
  enqueue.assign({ history: [] });
});

const stopped = player.createStateConfig({
  entry: [stopMeter, tidy],
  on: { LOAD: { target: 'loading', actions: rememberTrack } },
});

export const playerMachine = player.createMachine({
  id: 'player',
  context: { track: null, volume: 5, history: [] },
  initial: 'stopped',
  on: { VOLUME: { actions: [setVolume, trace] } },
  states: {
    stopped,
    loading: {
      invoke: {
        src: 'loadTrack',
        input: ({ context }) => ({ track: context.track ?? '' }),
        onDone: 'playing',
        onError: 'stopped',
      },
    },
    playing: {
      entry: [announce, played, startMeter, notifyMeter],
      on: {
        PAUSE: 'paused',
        STOP: 'stopped',
        VOLUME: [
          { guard: { type: 'loud', params: { above: 8 } }, actions: [setVolume, autoPause] },
          { actions: setVolume },
        ],
      },
    },
    paused: {
      entry: autoPause,
      exit: keepPlaying,
      on: { PLAY: { guard: 'hasTrack', target: 'playing' }, STOP: 'stopped' },
    },
  },
});
