import { setup, assign } from 'xstate';
import { fetchProfile, trackEvent } from './services';
import * as analytics from './analytics';

export const profile = setup({
  actors: { fetchProfile },
  actions: { track: trackEvent, report: analytics.report },
}).createMachine({
  id: 'profile',
  initial: 'loading',
  states: {
    loading: {
      entry: trackEvent,
      invoke: { src: 'fetchProfile', onDone: { target: 'shown', actions: assign({ profile: ({ event }) => event.output }) } },
    },
    shown: { exit: analytics.flush },
  },
});
