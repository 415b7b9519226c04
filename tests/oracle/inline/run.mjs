// Runs the inline-JavaScript corpus (cases/*.js) through real XState and prints the traces.
//
// Usage: node --conditions=development tests/oracle/inline/run.mjs [case.js ...]
// With no arguments every file in cases/ runs. Each case file is XState source:
//
//   // events: [{"type": "INC"}, {"type": "SET", "value": 3}]
//   // input: {"start": 2}                  (optional; given to initialTransition)
//   import { createMachine, assign } from 'xstate';
//   const machine = createMachine({ ... inline arrow functions ... });
//
// This is the reference oracle running the corpus, not product code: the source is evaluated
// by node with `new Function`, the `import` line becoming a destructuring of the xstate module
// passed in. The pure API (initialTransition / transition) then runs the events, and every
// step is reported in the shape trace.mjs uses:
// {event, value, context, status, tags, output, actions, action_params, children, snapshot_error}
// or {event, error} when XState threw (the trace stops there).
import { readFileSync, readdirSync, realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
// Resolved from tests/oracle/node_modules, the same ESM development build trace.mjs uses.
import * as xstate from 'xstate';

const HERE = dirname(fileURLToPath(import.meta.url));
const { initialTransition, transition } = xstate;

const INIT_EVENT = { type: 'xstate.init' };
const IMPORT_LINE = /^\s*import\s*\{([^}]*)\}\s*from\s*['"]xstate['"]\s*;?\s*$/gm;

/** The case's header comments: `// events: [...]` and `// input: ...` (one JSON line each). */
export function readHeader(source) {
  const header = {};
  for (const match of source.matchAll(/^\/\/\s*(events|input):\s*(.*)$/gm)) {
    header[match[1]] = JSON.parse(match[2]);
  }
  return header;
}

/** Evaluates the source (its `import {…} from 'xstate'` line becomes a destructuring) and returns `machine`. */
export function loadMachine(source) {
  let imports = 0;
  const body = source.replace(IMPORT_LINE, (_, names) => {
    imports += 1;
    return `const {${names}} = xstate;`;
  });
  if (imports !== 1) throw new Error(`a case needs exactly one "import { ... } from 'xstate'" line, found ${imports}`);
  if (!/^const machine = /m.test(body)) throw new Error('a case must declare `const machine = ...`');
  // eslint-disable-next-line no-new-func
  return new Function('xstate', `"use strict";\n${body}\nreturn machine;`)(xstate);
}

/** The JSON-comparable part of an action's params (as trace.mjs's actionParams). */
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
      return { actorRef: /^x:\d+$/.test(params.id ?? '') ? '(generated)' : params.id ?? null };
    default:
      return params;
  }
}

function errorDetail(error) {
  if (error instanceof Error) return error.message;
  return error === undefined ? null : JSON.parse(JSON.stringify(error));
}

function errorMessage(error) {
  return error instanceof Error ? error.message : String(error);
}

/** A snapshot as JSON sees it (undefined keys dropped, as the statekit side sees them too). */
function asJson(value) {
  return value === undefined ? null : JSON.parse(JSON.stringify(value));
}

export function describeStep(event, snapshot, executableActions) {
  return {
    event,
    value: snapshot.value,
    context: asJson(snapshot.context),
    status: snapshot.status,
    tags: [...snapshot.tags].sort(),
    output: asJson(snapshot.output),
    actions: executableActions.map((action) => action.type),
    action_params: executableActions.map((action) => asJson(actionParams(action) ?? null)),
    children: Object.keys(snapshot.children ?? {}).sort(),
    snapshot_error: snapshot.status === 'error' ? errorDetail(snapshot.error) : null,
  };
}

export function runSource(name, source, header = readHeader(source)) {
  const { events = [], input } = header;
  const steps = [];
  let machine;
  let snapshot;
  try {
    machine = loadMachine(source);
    const [initialSnapshot, initialActions] = initialTransition(machine, input);
    snapshot = initialSnapshot;
    steps.push(describeStep(INIT_EVENT, snapshot, initialActions));
  } catch (error) {
    steps.push({ event: INIT_EVENT, error: errorMessage(error) });
    return { name, steps };
  }
  for (const event of events) {
    try {
      const [nextSnapshot, stepActions] = transition(machine, snapshot, event);
      snapshot = nextSnapshot;
      steps.push(describeStep(event, snapshot, stepActions));
    } catch (error) {
      steps.push({ event, error: errorMessage(error) });
      break;
    }
  }
  return { name, steps };
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
    process.stderr.write('run.mjs must run on the development build of XState: node --conditions=development run.mjs\n');
    process.exit(2);
  }
  // Cases translated from XState's own tests (harvest_xstate.py): {name, source, events, input}.
  const runCase = (testCase) => runSource(testCase.name, testCase.source,
    { events: testCase.events ?? [], input: testCase.input });
  const runFile = (path) => (path.endsWith('.json')
    ? JSON.parse(readFileSync(path, 'utf8')).map(runCase)
    : [runSource(basename(path, '.js'), readFileSync(path, 'utf8'))]);
  const casesDir = join(HERE, 'cases');
  const suiteDir = join(HERE, 'xstate');
  let results;
  if (process.argv[2] === '--json') {
    results = JSON.parse(readFileSync(0, 'utf8')).map(runCase);  // candidates on stdin
  } else {
    const paths = process.argv.length > 2
      ? process.argv.slice(2)
      : [
        ...readdirSync(casesDir).filter((file) => file.endsWith('.js')).sort().map((file) => join(casesDir, file)),
        ...readdirSync(suiteDir).filter((file) => file.endsWith('.json')).sort().map((file) => join(suiteDir, file)),
      ];
    results = paths.flatMap(runFile);
  }
  process.stdout.write(`${JSON.stringify(results)}\n`);
}
