// Runs the inline-JavaScript corpus through XState's running actor (`createActor`) and prints
// the snapshot after `start()` and after each `send`: the reference for statekit's `Actor`
// (tests/engine/test_actor_oracle.py), as run.mjs is for the pure API.
//
// Usage: node --conditions=development tests/oracle/inline/run_actor.mjs [case.js | suite.json ...]
// With no arguments every file in cases/ and xstate/ runs (the same files as run.mjs).
//
// Each case runs as `createActor(machine, { input, clock })`, `.start()`, then `actor.send(e)`
// for each event, and each step is read synchronously after the call returns: no microtask
// runs in between (a promise actor never settles, as statekit's Actor never runs one), and the
// clock fires nothing (statekit's VirtualClock fires only when advanced, which this never does).
// A step is run.mjs's step without the actions (an actor runs them rather than returning them):
// {event, value, context, status, tags, output, children, snapshot_error}, or {event, error}
// when createActor, start or send threw (the trace stops there).
import { readFileSync, readdirSync, realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as xstate from 'xstate';
import { describeStep, loadMachine, readHeader } from './run.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const INIT_EVENT = { type: 'xstate.init' };

/** A clock that keeps the timers set on it and fires none of them (XState's `Clock` shape). */
function stoppedClock() {
  let next = 0;
  const timers = new Map();
  return {
    setTimeout(callback, ms) {
      next += 1;
      timers.set(next, { callback, ms });
      return next;
    },
    clearTimeout(id) {
      timers.delete(id);
    },
  };
}

/** Where the machines' `log` actions write (XState's default logger, console.log, is stdout's). */
function toStderr(...args) {
  const shown = (arg) => {
    if (typeof arg === 'string') return arg;
    try { return JSON.stringify(arg); } catch { return String(arg); }
  };
  process.stderr.write(`${args.map(shown).join(' ')}\n`);
}

function snapshotStep(event, snapshot) {
  // A machine that cannot compute its initial state gives an actor whose snapshot is only
  // `{status: 'error', error}` (no value, no tags): it could not start, as when createActor throws.
  if (snapshot.status === 'error' && snapshot.tags === undefined) return { event, error: errorMessage(snapshot.error) };
  const { actions, action_params: actionParams, ...step } = describeStep(event, snapshot, []);
  return step;
}

function errorMessage(error) {
  return error instanceof Error ? error.message : String(error);
}

export function runActor(name, source, header = readHeader(source)) {
  const { events = [], input } = header;
  const steps = [];
  let actor;
  try {
    const machine = loadMachine(source);
    actor = xstate.createActor(machine, { input, clock: stoppedClock(), logger: toStderr });
    // An observer with an error callback: otherwise XState reports an actor's error as an
    // uncaught exception on a later tick (the error is in the snapshot, which is what is read).
    actor.subscribe({ error: () => {} });
    actor.start();
    steps.push(snapshotStep(INIT_EVENT, actor.getSnapshot()));
  } catch (error) {
    steps.push({ event: INIT_EVENT, error: errorMessage(error) });
    return { name, steps, actor };
  }
  for (const event of events) {
    try {
      actor.send(event);
      steps.push(snapshotStep(event, actor.getSnapshot()));
    } catch (error) {
      steps.push({ event, error: errorMessage(error) });
      break;
    }
  }
  return { name, steps, actor };
}

const isMain = process.argv[1] !== undefined
  && pathToFileURL(realpathSync(process.argv[1])).href === import.meta.url;
if (isMain) {
  // What the machines' own actions print (console.log in a custom action) goes to stderr:
  // stdout carries the one JSON answer.
  for (const method of ['log', 'info', 'debug']) {
    // eslint-disable-next-line no-console
    console[method] = toStderr;
  }
  const runCase = (testCase) => runActor(testCase.name, testCase.source,
    { events: testCase.events ?? [], input: testCase.input });
  const runFile = (path) => (path.endsWith('.json')
    ? JSON.parse(readFileSync(path, 'utf8')).map(runCase)
    : [runActor(basename(path, '.js'), readFileSync(path, 'utf8'))]);
  const casesDir = join(HERE, 'cases');
  const suiteDir = join(HERE, 'xstate');
  const paths = process.argv.length > 2
    ? process.argv.slice(2)
    : [
      ...readdirSync(casesDir).filter((file) => file.endsWith('.js')).sort().map((file) => join(casesDir, file)),
      ...readdirSync(suiteDir).filter((file) => file.endsWith('.json')).sort().map((file) => join(suiteDir, file)),
    ];
  const results = paths.flatMap(runFile);
  // Stopped before anything else can run (a promise child settling, a microtask), then the answer
  // and the exit: nothing an actor does later can change a trace (or reach stdout: console.log
  // and the `log` action write to stderr).
  for (const { actor } of results) {
    try { actor?.stop(); } catch { /* an actor in error may refuse; its trace is taken */ }
  }
  // (The exit waits for the write: a pipe takes a large answer in several writes.)
  process.stdout.write(`${JSON.stringify(results.map(({ name, steps }) => ({ name, steps })))}\n`,
    () => process.exit(0));
}
