// Runs XState source (a module defining a machine with its own guards and actions) through real
// @xstate/graph 3.0.4 and prints the paths it finds, as JSON: the same source text statekit's
// generate_graph_paths reads, so both sides run the implementations the source gives.
//
// Usage: node --conditions=development tests/oracle/graph/source_paths.mjs < cases.json
// Input: a JSON array of cases {name, source, algorithm ('shortest' | 'simple'), input?, events?,
// toState?, fromState?, limit?}. `source` is an ES module importing from 'xstate' whose first
// createMachine(...) is the machine; it must `export const machine = ...`. toState is a state
// value (snapshot.matches) or '#id'; fromState a state value resolved with the initial context.
// Output: [{name, paths: [{state: {value, context}, steps: [{state, event}], weight}]} | {name, error}].
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { initialTransition } from 'xstate';
import { getShortestPaths, getSimplePaths } from '@xstate/graph';

// The modules are written next to this script so that 'xstate' resolves from tests/oracle/node_modules.
const here = fileURLToPath(new URL('.', import.meta.url));
const folder = mkdtempSync(join(here, '.source-'));

function options(machine, testCase) {
  const found = {};
  if (testCase.input !== undefined) found.input = testCase.input;
  if (testCase.events !== undefined) {
    found.events = testCase.events.map((event) => (typeof event === 'string' ? { type: event } : event));
  }
  if (testCase.limit !== undefined) found.limit = testCase.limit;
  if (testCase.toState !== undefined) {
    const key = testCase.toState;
    found.toState = typeof key === 'string' && key.startsWith('#')
      ? (snapshot) => snapshot._nodes.includes(machine.getStateNodeById(key))
      : (snapshot) => snapshot.matches(key);
  }
  if (testCase.fromState !== undefined) {
    const [initial] = initialTransition(machine, testCase.input);
    found.fromState = machine.resolveState({ value: testCase.fromState, context: initial.context });
  }
  return found;
}

const stateOf = (snapshot) => ({ value: snapshot.value, context: snapshot.context });

async function runCase(testCase, index) {
  try {
    const file = join(folder, `case${index}.mjs`);
    writeFileSync(file, testCase.source);
    const { machine } = await import(pathToFileURL(file).href);
    const find = testCase.algorithm === 'simple' ? getSimplePaths : getShortestPaths;
    const paths = find(machine, options(machine, testCase)).map((path) => ({
      state: stateOf(path.state),
      steps: path.steps.map((step) => ({ state: stateOf(step.state), event: step.event })),
      weight: path.weight,
    }));
    return { name: testCase.name, paths };
  } catch (error) {
    return { name: testCase.name, error: error instanceof Error ? error.message : String(error) };
  }
}

try {
  const cases = JSON.parse(readFileSync(0, 'utf8'));
  const results = [];
  for (const [index, testCase] of cases.entries()) results.push(await runCase(testCase, index));
  process.stdout.write(`${JSON.stringify(results)}\n`);
} finally {
  rmSync(folder, { recursive: true, force: true });
}
