// XState worker for bench/engine.py: the same protocol as bench/peers/harness.py.
//   node bench/node/peer.mjs --peer actor|transition --machine bench/machines/player.json
//        [--events N] [--seconds S] [--repeats R]
//   node bench/node/peer.mjs --trace --machine SPEC.json   # XState's trace, as JSON
// Prints one JSON object: validation against the expected trace, then the best of R timed
// repeats, each on a fresh actor / initial snapshot (creation untimed).
//
// A spec's cycle holds event types or event objects; `{"type": "$advance", "ms": N}` moves the
// simulated clock instead (the actor's SimulatedClock; for transition(), a scheduler of the
// delayed raise actions it returns, as an application using the pure API would keep).
// Implementations (spec.implementations: guards, assigns, delays as JavaScript source) are
// compiled once with `new Function` from this repository's own bench files, never from input.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import {
  SimulatedClock, assign, cancel, createActor, createMachine, initialTransition, raise, setup, transition,
} from 'xstate';

const CALIBRATION_SECONDS = 0.2;
const VALIDATION_CYCLES = 2;
const ADVANCE = '$advance';

function parseArgs(argv) {
  const args = { events: 1_000_000, seconds: 0.5, repeats: 5, trace: false };
  for (let i = 0; i < argv.length; i += 1) {
    const key = argv[i].replace(/^--/, '');
    if (key === 'trace') { args.trace = true; continue; }
    args[key] = ['events', 'seconds', 'repeats'].includes(key) ? Number(argv[i + 1]) : argv[i + 1];
    i += 1;
  }
  return args;
}

function leavesOfValue(value, prefix = '') {
  if (typeof value === 'string') return [prefix + value];
  const found = [];
  for (const [key, child] of Object.entries(value)) found.push(...leavesOfValue(child, `${prefix}${key}.`));
  return found.sort();
}

const compile = (source) => new Function(`return (${source});`)();

function buildMachine(spec) {
  const impl = spec.implementations;
  if (!impl) return createMachine(spec.config);
  const guards = Object.fromEntries(Object.entries(impl.guards ?? {}).map(([k, s]) => [k, compile(s)]));
  const actions = Object.fromEntries(Object.entries(impl.assigns ?? {}).map(([k, s]) => [k, assign(compile(s))]));
  for (const [name, builtin] of Object.entries(impl.builtins ?? {})) {
    // Built-in actions written as data (statekit's encoding), as XState code writes them.
    if (builtin.type === 'xstate.raise') actions[name] = raise(builtin.event, { delay: builtin.delay, id: builtin.id });
    else if (builtin.type === 'xstate.cancel') actions[name] = cancel(builtin.sendId);
    else throw new Error(`unsupported built-in ${builtin.type}`);
  }
  const delays = Object.fromEntries(Object.entries(impl.delays ?? {}).map(([k, s]) => [k, compile(s)]));
  return setup({ guards, actions, delays }).createMachine(spec.config);
}

// Two ways to drive XState: a started actor, and the pure transition() function.
class ActorInstance {
  constructor(machine) {
    this.clock = new SimulatedClock();
    this.actor = createActor(machine, { clock: this.clock }).start();
  }
  run(events) {
    const actor = this.actor;
    for (let i = 0; i < events.length; i++) {
      const event = events[i];
      if (event.type === ADVANCE) this.clock.increment(event.ms);
      else actor.send(event);
    }
  }
  snapshot() { return this.actor.getSnapshot(); }
}

// The delayed events of the pure API: XState's transition() returns `xstate.raise` actions
// with a `delay` and `xstate.cancel` actions; the caller schedules them. Timers are kept in
// due order (ties in scheduling order), as XState's SimulatedClock fires them.
class TransitionInstance {
  constructor(machine) {
    this.machine = machine;
    this.now = 0;
    this.sequence = 0;
    this.timers = new Map(); // id -> {due, sequence, event}
    let actions;
    [this.current, actions] = initialTransition(machine);
    this.schedule(actions);
  }
  schedule(actions) {
    for (let i = 0; i < actions.length; i++) {
      const action = actions[i];
      if (action.type === 'xstate.raise' && action.params.delay !== undefined) {
        this.timers.set(action.params.id, { due: this.now + action.params.delay, sequence: this.sequence++, event: action.params.event });
      } else if (action.type === 'xstate.cancel') {
        this.timers.delete(action.params.sendId);
      }
    }
  }
  send(event) {
    const [next, actions] = transition(this.machine, this.current, event);
    this.current = next;
    if (actions.length) this.schedule(actions);
  }
  advance(ms) {
    const target = this.now + ms;
    for (;;) {
      let soonestId;
      let soonest;
      for (const [id, timer] of this.timers) {
        if (timer.due <= target && (soonest === undefined || timer.due < soonest.due
          || (timer.due === soonest.due && timer.sequence < soonest.sequence))) {
          soonestId = id;
          soonest = timer;
        }
      }
      if (soonest === undefined) break;
      this.timers.delete(soonestId);
      this.now = soonest.due;
      this.send(soonest.event);
    }
    this.now = target;
  }
  run(events) {
    for (let i = 0; i < events.length; i++) {
      const event = events[i];
      if (event.type === ADVANCE) this.advance(event.ms);
      else this.send(event);
    }
  }
  snapshot() { return this.current; }
}

const leaves = (instance) => leavesOfValue(instance.snapshot().value);
const same = (a, b) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());
const encode = (item) => (typeof item === 'string' ? { type: item } : item);

function expectedAfter(spec, count) {
  if (count === 0) return [...spec.initial].sort();
  if (spec.walk) return [...spec.trace[count - 1]].sort();
  return [...spec.trace[(count - 1) % spec.trace.length]].sort();
}

function makeEvents(spec, count) {
  const encoded = spec.cycle.map(encode);
  if (spec.walk) return encoded.slice(0, count);
  const events = new Array(count);
  for (let i = 0; i < count; i++) events[i] = encoded[i % encoded.length];
  return events;
}

const validationSteps = (spec) => (spec.walk ? spec.cycle.length : VALIDATION_CYCLES * spec.cycle.length);

function validate(newInstance, spec) {
  const instance = newInstance();
  if (!same(leaves(instance), expectedAfter(spec, 0))) return `initial configuration ${leaves(instance)}`;
  const events = makeEvents(spec, validationSteps(spec));
  for (let step = 0; step < events.length; step++) {
    instance.run([events[step]]);
    const expected = expectedAfter(spec, step + 1);
    if (!same(leaves(instance), expected)) {
      return `after event #${step + 1} (${JSON.stringify(events[step])}): ${JSON.stringify(leaves(instance))} != ${JSON.stringify(expected)}`;
    }
    if (spec.contexts) {
      const context = JSON.stringify(instance.snapshot().context);
      const expectedContext = JSON.stringify(spec.contexts[step % spec.contexts.length]);
      if (context !== expectedContext) return `context after event #${step + 1}: ${context} != ${expectedContext}`;
    }
  }
  return null;
}

// XState's own trace of the spec's events: the configuration (and context) after each.
function trace(machine, spec) {
  const instance = new ActorInstance(machine);
  const events = makeEvents(spec, spec.walk ? spec.cycle.length : spec.cycle.length);
  const configurations = [];
  const contexts = [];
  for (const event of events) {
    instance.run([event]);
    configurations.push(leaves(instance));
    contexts.push(instance.snapshot().context ?? null);
  }
  return { initial: leaves(new ActorInstance(machine)), trace: configurations, contexts };
}

// Warm up (the JIT needs longer than CPython), then estimate events per second from the
// last, warm window.
function rateEstimate(newInstance, spec) {
  rateWindow(newInstance, spec);
  rateWindow(newInstance, spec);
  return rateWindow(newInstance, spec);
}

function rateWindow(newInstance, spec) {
  const instance = newInstance();
  let chunk = Math.min(spec.cycle.length * 10, 1000);
  let sent = 0;
  const started = performance.now();
  let elapsed = 0;
  while (elapsed < CALIBRATION_SECONDS) {
    if (spec.walk && sent + chunk > spec.cycle.length) break;
    const events = spec.walk ? makeEvents(spec, sent + chunk).slice(sent) : makeEvents(spec, chunk);
    instance.run(events);
    sent += chunk;
    chunk *= 2;
    elapsed = (performance.now() - started) / 1000;
  }
  return sent / elapsed;
}

function measure(label, newInstance, spec, args) {
  const version = createRequire(import.meta.url)('xstate/package.json').version;
  const result = { label, version };
  const divergence = validate(newInstance, spec);
  if (divergence !== null) return { ...result, error: `wrong behaviour: ${divergence}` };
  const rate = rateEstimate(newInstance, spec);
  const cycleLength = spec.cycle.length;
  let count = Math.floor(Math.min(args.events, Math.max(cycleLength * 20, rate * args.seconds)));
  if (spec.walk) count = Math.min(count, cycleLength);
  else if (count % cycleLength === 0) count += 1;
  const events = makeEvents(spec, count);
  const expectedFinal = expectedAfter(spec, count);
  const timings = [];
  const cpuTimings = [];
  for (let r = 0; r < args.repeats; r++) {
    const instance = newInstance();
    globalThis.gc?.(); // with --expose-gc: start each repeat without the previous garbage
    const cpuStarted = process.cpuUsage();
    const started = performance.now();
    instance.run(events);
    timings.push((performance.now() - started) / 1000);
    // CPU time of the whole process: V8's helper threads (GC, compiler) count too.
    const cpu = process.cpuUsage(cpuStarted);
    cpuTimings.push((cpu.user + cpu.system) / 1e6);
    if (!same(leaves(instance), expectedFinal)) {
      return { ...result, error: `after ${count} events ended in ${leaves(instance)}, expected ${expectedFinal}` };
    }
  }
  const sorted = [...timings].sort((a, b) => a - b);
  const best = sorted[0];
  const median = sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
  return {
    ...result,
    events: count,
    repeats: args.repeats,
    best_seconds: best,
    events_per_second: count / best,
    median_events_per_second: count / median,
    events_per_cpu_second: count / Math.max(Math.min(...cpuTimings), 1e-9),
  };
}

const args = parseArgs(process.argv.slice(2));
const spec = JSON.parse(readFileSync(args.machine, 'utf8'));
let result;
try {
  const machine = buildMachine(spec);
  if (args.trace) {
    result = trace(machine, spec);
  } else if (args.peer === 'actor') {
    result = measure('XState createActor (node)', () => new ActorInstance(machine), spec, args);
  } else if (args.peer === 'transition') {
    result = measure('XState transition() (node)', () => new TransitionInstance(machine), spec, args);
  } else {
    throw new Error(`unknown --peer ${args.peer} (actor or transition)`);
  }
} catch (error) {
  result = { error: String(error?.stack ?? error) };
}
result.machine = spec.name;
process.stdout.write(JSON.stringify(result) + '\n');
