// Runs oracle cases through real XState's pure API and prints their traces as JSON.
//
// Usage: node --conditions=development trace.mjs [cases.json ...] < cases.json
// The development build of XState is the reference: it is the one XState's own tests run,
// and it refuses some inputs the production build lets through (an event of type '*', a
// transition with `cond`). statekit refuses them too, so the oracle must run that build.
// Each input is a JSON array of cases {name, config, events, input?, guards?}; with no file
// arguments the array is read from stdin. The output is one JSON array of
// {name, steps: [{event, value, context, status, tags, output, actions, action_params, children, snapshot_error} | {event, error}]}.
import { readFileSync, realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import {
  and, assign, cancel, emit, enqueueActions, initialTransition, log, not, or, raise, sendParent,
  sendTo, setup, spawnChild, stateIn, stopChild, transition,
} from 'xstate';
import { actions, actors, delays, guardsWithOverrides } from './implementations.mjs';

const INIT_EVENT = { type: 'xstate.init' };

/** Options objects without the keys that were not given (XState checks `in`, not `!== undefined`). */
function definedOnly(options) {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}

function toGuard(guard) {
  if (guard === undefined || typeof guard === 'string') return guard;
  switch (guard.type) {
    case 'xstate.and': return and(guard.guards.map(toGuard));
    case 'xstate.or': return or(guard.guards.map(toGuard));
    case 'xstate.not': return not(toGuard(guard.guard));
    case 'xstate.stateIn': return stateIn(guard.state);
    default: return guard; // {type: name, params}
  }
}

function toEnqueued(items, enqueue, check) {
  for (const item of items ?? []) {
    if (item !== null && typeof item === 'object' && 'if' in item) {
      const branch = check(toGuard(item.if)) ? item.then : item.else;
      toEnqueued(branch, enqueue, check);
    } else {
      enqueue(toAction(item));
    }
  }
}

// Inline code (`{"$js": source}`) of an assignment, made a function by node (the oracle's side:
// statekit itself runs such code only in its sandbox).
const fromJs = (value) =>
  value !== null && typeof value === 'object' && typeof value.$js === 'string' ? (0, eval)(`(${value.$js})`) : value;

function toAction(action) {
  if (typeof action === 'string') return action;
  const options = definedOnly({ delay: action.delay, id: action.id });
  switch (action.type) {
    case 'xstate.assign': return assign(mapValues(action.assignment, fromJs));
    case 'xstate.raise': return raise(action.event, options);
    case 'xstate.sendTo': return sendTo(action.to, action.event, options);
    case 'xstate.sendParent': return sendParent(action.event, options);
    case 'xstate.emit': return emit(action.event);
    // Without a value, log() logs {context, event}; undefined selects that default.
    case 'xstate.log': return log('value' in action ? action.value : undefined, action.label);
    case 'xstate.cancel': return cancel(action.sendId);
    case 'xstate.spawnChild':
      return spawnChild(action.src, definedOnly({ id: action.id, input: action.input, systemId: action.systemId }));
    case 'xstate.stopChild': return stopChild(action.actorRef);
    case 'xstate.enqueueActions':
      return enqueueActions(({ enqueue, check }) => toEnqueued(action.actions, enqueue, check));
    default: return action; // {type: name, params}
  }
}

function toActions(actionList) {
  if (actionList === undefined) return undefined;
  return Array.isArray(actionList) ? actionList.map(toAction) : toAction(actionList);
}

function toTransition(transitionConfig) {
  if (transitionConfig === undefined || typeof transitionConfig === 'string') return transitionConfig;
  if (Array.isArray(transitionConfig)) return transitionConfig.map(toTransition);
  const converted = { ...transitionConfig };
  if ('guard' in converted) converted.guard = toGuard(converted.guard);
  if ('actions' in converted) converted.actions = toActions(converted.actions);
  return converted;
}

function mapValues(object, convert) {
  // Object.entries keeps JS key order, so integer-like keys stay first as in XState.
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, convert(value)]));
}

function toInvoke(invoke) {
  const converted = { ...invoke };
  for (const key of ['onDone', 'onError', 'onSnapshot']) {
    if (key in converted) converted[key] = toTransition(converted[key]);
  }
  return converted;
}

export function toStateConfig(state) {
  const converted = { ...state };
  for (const key of ['entry', 'exit']) {
    if (key in converted) converted[key] = toActions(converted[key]);
  }
  if ('on' in converted) converted.on = mapValues(converted.on, toTransition);
  if (converted.initial !== null && typeof converted.initial === 'object' && 'actions' in converted.initial) {
    converted.initial = { ...converted.initial, actions: toActions(converted.initial.actions) };
  }
  if ('after' in converted) converted.after = mapValues(converted.after, toTransition);
  for (const key of ['always', 'onDone']) {
    if (key in converted) converted[key] = toTransition(converted[key]);
  }
  if ('invoke' in converted) {
    converted.invoke = Array.isArray(converted.invoke) ? converted.invoke.map(toInvoke) : toInvoke(converted.invoke);
  }
  if ('states' in converted) converted.states = mapValues(converted.states, toStateConfig);
  return converted;
}

export function unwrap(document) {
  return document !== null && typeof document === 'object' && 'machine' in document && !('states' in document)
    ? document.machine
    : document;
}

/**
 * The JSON-comparable part of an action's params. Actor refs become their ids; a spawned
 * actor without an id gets a generated session id, which is left out because it is not stable.
 */
function actionParams(action) {
  const params = action.params;
  if (params === undefined || params === null) return null;
  switch (action.type) {
    case 'xstate.sendTo': {
      const { to, targetId, ...rest } = params;
      return { to: targetId ?? to?.id ?? null, ...rest };
    }
    case 'xstate.spawnChild': {
      const { actorRef, ...rest } = params;
      return rest;
    }
    case 'xstate.stopChild':
      return { actorRef: stableActorId(params.id) };
    default:
      return params;
  }
}

/**
 * A child spawned without an id gets a generated session id (`x:4`) that depends on how many
 * actors the process made before; it is reported as GENERATED_ID so traces stay comparable.
 */
const GENERATED_ID = '(generated)';
function stableActorId(id) {
  if (id === undefined || id === null) return null;
  return /^x:\d+$/.test(id) ? GENERATED_ID : id;
}

function describeStep(event, snapshot, executableActions) {
  return {
    event,
    value: snapshot.value,
    context: snapshot.context ?? null,
    status: snapshot.status,
    tags: [...snapshot.tags].sort(),
    output: snapshot.output === undefined ? null : snapshot.output,
    actions: executableActions.map((action) => action.type),
    action_params: executableActions.map((action) => JSON.parse(JSON.stringify(actionParams(action) ?? null))),
    children: Object.keys(snapshot.children ?? {}).sort(),
    // Why the snapshot is in status 'error': a thrown Error's message, or an error event's `error`.
    snapshot_error: snapshot.status === 'error' ? errorDetail(snapshot.error) : null,
  };
}

function errorDetail(error) {
  if (error instanceof Error) return error.message;
  return error === undefined ? null : JSON.parse(JSON.stringify(error));
}

function errorMessage(error) {
  return error instanceof Error ? error.message : String(error);
}

export function runCase(testCase) {
  const steps = [];
  let machine;
  let snapshot;
  try {
    machine = setup({
      guards: guardsWithOverrides(testCase.guards),
      actions,
      delays,
      actors,
    }).createMachine(toStateConfig(unwrap(testCase.config)));
    const [initialSnapshot, initialActions] = initialTransition(machine, testCase.input);
    snapshot = initialSnapshot;
    steps.push(describeStep(INIT_EVENT, snapshot, initialActions));
  } catch (error) {
    steps.push({ event: INIT_EVENT, error: errorMessage(error) });
    return { name: testCase.name, steps };
  }
  for (const event of testCase.events ?? []) {
    try {
      const [nextSnapshot, stepActions] = transition(machine, snapshot, event);
      snapshot = nextSnapshot;
      steps.push(describeStep(event, snapshot, stepActions));
    } catch (error) {
      steps.push({ event, error: errorMessage(error) });
      break;
    }
  }
  return { name: testCase.name, steps };
}

function readCases() {
  const paths = process.argv.slice(2);
  const documents = paths.length > 0
    ? paths.map((path) => readFileSync(path, 'utf8'))
    : [readFileSync(0, 'utf8')];
  return documents.flatMap((text) => JSON.parse(text));
}

function usesDevelopmentBuild() {
  const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return flags.some((flag, index) => flag === '--conditions=development' || flag === '-C=development'
    || ((flag === '--conditions' || flag === '-C') && flags[index + 1] === 'development'));
}

const isMain = process.argv[1] !== undefined
  && pathToFileURL(realpathSync(process.argv[1])).href === import.meta.url;
if (isMain) {
  if (!usesDevelopmentBuild()) {
    process.stderr.write('trace.mjs must run on the development build of XState: node --conditions=development trace.mjs\n');
    process.exit(2);
  }
  const results = readCases().map(runCase);
  process.stdout.write(`${JSON.stringify(results)}\n`);
}
