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
import { initialTransition, setup } from 'xstate';
import { getAdjacencyMap, getShortestPaths, getSimplePaths } from '@xstate/graph';
// statekit's JSON encoding read as XState config, as every oracle reads it.
import { toStateConfig } from '../trace.mjs';

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
