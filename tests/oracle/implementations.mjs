// The named implementations that oracle cases may refer to, for real XState.
// implementations.py defines the same names with the same behaviour for statekit: keep the
// two files in step (same names, same params, same defaults for missing context keys).
import { assign, fromPromise, fromCallback } from 'xstate';

const count = (context) => context.count ?? 0;

export const guards = {
  isTrue: () => true,
  isFalse: () => false,
  countIs: ({ context }, params) => count(context) === params.value,
  countAbove: ({ context }, params) => count(context) > params.value,
  countBelow: ({ context }, params) => count(context) < params.value,
  eventOk: ({ event }) => event.ok === true,
  eventValueAbove: ({ event }, params) => typeof event.value === 'number' && event.value > params.value,
};

export const actions = {
  increment: assign(({ context }) => ({ count: count(context) + 1 })),
  decrement: assign(({ context }) => ({ count: count(context) - 1 })),
  addValue: assign(({ context }, params) => ({ count: count(context) + params.value })),
  setFromEvent: assign(({ event }) => ({ value: event.value ?? null })),
  // The init event carries the machine input ({type: 'xstate.init', input}).
  storeInput: assign(({ event }) => ({ input: event.input ?? null })),
  // Done events carry `output` (final states, actors); error events carry `error`.
  storeOutput: assign(({ event }) => ({ output: event.output ?? null })),
  storeError: assign(({ event }) => ({ error: event.error ?? null })),
  record: assign(({ context, event }) => ({ log: [...(context.log ?? []), event.type] })),
  reset: assign(() => ({ count: 0, log: [] })),
};

export const delays = {
  short: 100,
  long: 5000,
};

// The pure API never runs actors; these exist so that `src` names resolve.
export const actors = {
  fetcher: fromPromise(async () => 'fetched'),
  saver: fromPromise(async () => 'saved'),
  ticker: fromCallback(() => () => {}),
};

// A case's `guards: {name: true|false}` replaces those guards with constants.
export function guardsWithOverrides(overrides = {}) {
  const merged = { ...guards };
  for (const [name, value] of Object.entries(overrides)) {
    merged[name] = () => value === true;
  }
  return merged;
}
