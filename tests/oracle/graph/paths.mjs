// Runs path cases through real @xstate/graph 3.0.4 and prints every path it finds, as JSON.
//
// Usage: python tests/oracle/graph/corpus.py | node --conditions=development tests/oracle/graph/paths.mjs
//        node --conditions=development tests/oracle/graph/paths.mjs --bench < bench-case.json
// Input: a JSON array of cases {name, config, algorithm, events?, toState?, fromState?, limit?,
// guards?, input?}; configs are in statekit's JSON encoding (docs/machine-format.md).
// Output: [{name, paths: [{state, steps: [{state, event}], weight}], adjacency} | {name, error}] where
// a state is {value, context} and adjacency lists [serialised state, [serialised event, ...]] as
// getAdjacencyMap explored them. Named guards are constants: the case's `guards`, else true, as the
// generate_graph_paths tool assumes. With --bench the input is one case plus `repeat`, and the
// output is {seconds: [wall, per run], cpuSeconds: [per run], states, totalCount}.
import { readFileSync } from 'node:fs';
import {
  and, assign, cancel, emit, enqueueActions, initialTransition, log, not, or, raise, setup, stateIn,
} from 'xstate';
import { getAdjacencyMap, getShortestPaths, getSimplePaths } from '@xstate/graph';

function toGuard(guard) {
  if (guard === undefined || typeof guard === 'string') return guard;
  switch (guard.type) {
    case 'xstate.and': return and(guard.guards.map(toGuard));
    case 'xstate.or': return or(guard.guards.map(toGuard));
    case 'xstate.not': return not(toGuard(guard.guard));
    case 'xstate.stateIn': return stateIn(guard.state);
    default: return guard;
  }
}

function definedOnly(options) {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}

function toEnqueued(items, enqueue, check) {
  for (const item of items ?? []) {
    if (item !== null && typeof item === 'object' && 'if' in item) {
      toEnqueued(check(toGuard(item.if)) ? item.then : item.else, enqueue, check);
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
  switch (action.type) {
    case 'xstate.assign': return assign(mapValues(action.assignment, fromJs));
    case 'xstate.raise': return raise(action.event, definedOnly({ delay: action.delay, id: action.id }));
    case 'xstate.emit': return emit(action.event);
    case 'xstate.log': return 'value' in action ? log(action.value, action.label) : log();
    case 'xstate.cancel': return cancel(action.sendId);
    case 'xstate.enqueueActions':
      return enqueueActions(({ enqueue, check }) => toEnqueued(action.actions, enqueue, check));
    default: return action;
  }
}

function toActions(list) {
  if (list === undefined) return undefined;
  return Array.isArray(list) ? list.map(toAction) : toAction(list);
}

function toTransition(config) {
  if (config === undefined || typeof config === 'string') return config;
  if (Array.isArray(config)) return config.map(toTransition);
  const converted = { ...config };
  if ('guard' in converted) converted.guard = toGuard(converted.guard);
  if ('actions' in converted) converted.actions = toActions(converted.actions);
  return converted;
}

// Object.entries keeps JS key order, so integer-like keys stay first as in XState.
const mapValues = (object, convert) =>
  Object.fromEntries(Object.entries(object).map(([key, value]) => [key, convert(value)]));

function toInvoke(invoke) {
  const converted = { ...invoke };
  for (const key of ['onDone', 'onError', 'onSnapshot']) {
    if (key in converted) converted[key] = toTransition(converted[key]);
  }
  return converted;
}

function toStateConfig(state) {
  const converted = { ...state };
  for (const key of ['entry', 'exit']) if (key in converted) converted[key] = toActions(converted[key]);
  if ('on' in converted) converted.on = mapValues(converted.on, toTransition);
  if ('after' in converted) converted.after = mapValues(converted.after, toTransition);
  for (const key of ['always', 'onDone']) if (key in converted) converted[key] = toTransition(converted[key]);
  if ('invoke' in converted) {
    converted.invoke = Array.isArray(converted.invoke) ? converted.invoke.map(toInvoke) : toInvoke(converted.invoke);
  }
  if ('states' in converted) converted.states = mapValues(converted.states, toStateConfig);
  return converted;
}

/** Every named guard is a constant: the given boolean, else true. */
function constantGuards(given = {}) {
  return new Proxy({}, { get: (_target, name) => () => (name in given ? given[name] === true : true) });
}

function createCaseMachine(testCase) {
  const config = 'machine' in testCase.config && !('states' in testCase.config) ? testCase.config.machine : testCase.config;
  return setup({ guards: constantGuards(testCase.guards) }).createMachine(toStateConfig(config));
}

function traversalOptions(machine, testCase) {
  const options = {};
  if (testCase.input !== undefined) options.input = testCase.input;
  if (testCase.events !== undefined) {
    options.events = testCase.events.map((event) => (typeof event === 'string' ? { type: event } : event));
  }
  if (testCase.limit !== undefined) options.limit = testCase.limit;
  if (testCase.toState !== undefined) {
    const key = testCase.toState;
    options.toState = typeof key === 'string' && key.startsWith('#')
      ? (snapshot) => snapshot._nodes.includes(machine.getStateNodeById(key))
      : (snapshot) => snapshot.matches(key);
  }
  if (testCase.fromState !== undefined) {
    const [initial] = initialTransition(machine, testCase.input);
    options.fromState = machine.resolveState({ value: testCase.fromState, context: initial.context });
  }
  return options;
}

const stateOf = (snapshot) => ({ value: snapshot.value, context: snapshot.context });

function findPaths(testCase) {
  const machine = createCaseMachine(testCase);
  const find = testCase.algorithm === 'simple' ? getSimplePaths : getShortestPaths;
  return find(machine, traversalOptions(machine, testCase));
}

/** The explored graph: each state (serialised) with the serialised events tried in it, in order. */
function adjacencyOf(testCase) {
  const machine = createCaseMachine(testCase);
  const adjacency = getAdjacencyMap(machine, traversalOptions(machine, testCase));
  return Object.entries(adjacency).map(([state, { transitions }]) => [state, Object.keys(transitions)]);
}

function runCase(testCase) {
  try {
    const paths = findPaths(testCase).map((path) => ({
      state: stateOf(path.state),
      steps: path.steps.map((step) => ({ state: stateOf(step.state), event: step.event })),
      weight: path.weight,
    }));
    return { name: testCase.name, paths, adjacency: adjacencyOf(testCase) };
  } catch (error) {
    return { name: testCase.name, error: error instanceof Error ? error.message : String(error) };
  }
}

// Each run gets a fresh copy of the config (made before the clock starts), so nothing one run
// built can serve the next. `cpuSeconds` is the process's user + system time (all threads,
// the collector's and the JIT compiler's included), `seconds` the wall time.
function bench(testCase) {
  const seconds = [];
  const cpuSeconds = [];
  const text = JSON.stringify(testCase);
  let paths = [];
  for (let run = 0; run < (testCase.repeat ?? 1); run += 1) {
    const fresh = JSON.parse(text);
    const cpuStarted = process.cpuUsage();
    const started = process.hrtime.bigint();
    paths = findPaths(fresh);
    seconds.push(Number(process.hrtime.bigint() - started) / 1e9);
    const cpu = process.cpuUsage(cpuStarted);
    cpuSeconds.push((cpu.user + cpu.system) / 1e6);
  }
  const states = new Set(paths.map((path) => JSON.stringify(stateOf(path.state)))).size;
  return { seconds, cpuSeconds, states, totalCount: paths.length };
}

const text = readFileSync(0, 'utf8');
if (process.argv.includes('--bench')) {
  process.stdout.write(`${JSON.stringify(bench(JSON.parse(text)))}\n`);
} else {
  process.stdout.write(`${JSON.stringify(JSON.parse(text).map(runCase))}\n`);
}
