// XState worker for bench/engine.py: the same protocol as bench/peers/harness.py.
//   node bench/node/peer.mjs --peer actor|transition --machine bench/machines/player.json
//        [--events N] [--seconds S] [--repeats R]
// Prints one JSON object: validation against the expected trace, then the best of R timed
// repeats, each on a fresh actor / initial snapshot (creation untimed).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createActor, createMachine, initialTransition, transition } from 'xstate';

const CALIBRATION_SECONDS = 0.2;
const VALIDATION_CYCLES = 2;

function parseArgs(argv) {
  const args = { events: 1_000_000, seconds: 0.5, repeats: 5 };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    args[key] = ['events', 'seconds', 'repeats'].includes(key) ? Number(argv[i + 1]) : argv[i + 1];
  }
  return args;
}

function leavesOfValue(value, prefix = '') {
  if (typeof value === 'string') return [prefix + value];
  const found = [];
  for (const [key, child] of Object.entries(value)) found.push(...leavesOfValue(child, `${prefix}${key}.`));
  return found.sort();
}

// Two ways to drive XState: a started actor, and the pure transition() function.
class ActorInstance {
  constructor(machine) {
    this.actor = createActor(machine).start();
  }
  run(events) {
    const actor = this.actor;
    for (let i = 0; i < events.length; i++) actor.send(events[i]);
  }
  leaves() {
    return leavesOfValue(this.actor.getSnapshot().value);
  }
}

class TransitionInstance {
  constructor(machine) {
    this.machine = machine;
    [this.snapshot] = initialTransition(machine);
  }
  run(events) {
    const machine = this.machine;
    let snapshot = this.snapshot;
    for (let i = 0; i < events.length; i++) [snapshot] = transition(machine, snapshot, events[i]);
    this.snapshot = snapshot;
  }
  leaves() {
    return leavesOfValue(this.snapshot.value);
  }
}

const same = (a, b) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());

function expectedAfter(spec, count) {
  if (count === 0) return [...spec.initial].sort();
  return [...spec.trace[(count - 1) % spec.trace.length]].sort();
}

function makeEvents(spec, count) {
  const encoded = spec.cycle.map((type) => ({ type }));
  const events = new Array(count);
  for (let i = 0; i < count; i++) events[i] = encoded[i % encoded.length];
  return events;
}

function validate(newInstance, spec) {
  const instance = newInstance();
  if (!same(instance.leaves(), expectedAfter(spec, 0))) return `initial configuration ${instance.leaves()}`;
  for (let step = 0; step < VALIDATION_CYCLES * spec.cycle.length; step++) {
    const type = spec.cycle[step % spec.cycle.length];
    instance.run([{ type }]);
    const expected = expectedAfter(spec, step + 1);
    if (!same(instance.leaves(), expected)) {
      return `after event #${step + 1} (${type}): ${JSON.stringify(instance.leaves())} != ${JSON.stringify(expected)}`;
    }
  }
  return null;
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
  let chunk = spec.cycle.length * 10;
  let sent = 0;
  const started = performance.now();
  let elapsed = 0;
  while (elapsed < CALIBRATION_SECONDS) {
    instance.run(makeEvents(spec, chunk));
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
  if (count % cycleLength === 0) count += 1;
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
    if (!same(instance.leaves(), expectedFinal)) {
      return { ...result, error: `after ${count} events ended in ${instance.leaves()}, expected ${expectedFinal}` };
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
  const machine = createMachine(spec.config);
  if (args.peer === 'actor') {
    result = measure('XState createActor (node)', () => new ActorInstance(machine), spec, args);
  } else if (args.peer === 'transition') {
    result = measure('XState transition() (node)', () => new TransitionInstance(machine), spec, args);
  } else {
    throw new Error(`unknown --peer ${args.peer} (actor or transition)`);
  }
} catch (error) {
  result = { error: String(error) };
}
result.machine = spec.name;
process.stdout.write(JSON.stringify(result) + '\n');
