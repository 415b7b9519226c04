// Runs machines as live XState actors on a clock that keeps real time's order: the reference
// for statekit's live machines (`start_machine`, then `send_events` with `advanceMs`).
//
// Usage: node --conditions=development live_clock.mjs < cases.json
// Each case is {name, config, input?, guards?, script: [{events: [...], advanceMs?}]}. The output
// is one JSON array of {name, start, items: [{events: [...], timers: [...]}]}: the actor's snapshot
// after each sent event, then every snapshot its observers saw while the clock advanced (one per
// delayed event processed), each as {value, context, status}.
//
// XState's own SimulatedClock jumps to the end of an increment before it fires anything, so a
// timer that a timer schedules starts counting from the end. A real clock fires each timer at
// its due time, and what it schedules counts from there; `RealTimeOrderClock` does that, firing
// due timers in due order and, at equal due times, in the order they were set (as setTimeout).
import { readFileSync } from 'node:fs';
import { createActor, setup } from 'xstate';
import { actions, actors, delays, guardsWithOverrides } from './implementations.mjs';
import { toStateConfig, unwrap } from './trace.mjs';

class RealTimeOrderClock {
  constructor() { this.now = 0; this.nextId = 0; this.timers = new Map(); }
  setTimeout(fn, timeout) {
    const id = this.nextId++;
    this.timers.set(id, { due: this.now + Math.max(timeout, 0), fn });
    return id;
  }
  clearTimeout(id) { this.timers.delete(id); }
  advance(ms) {
    const target = this.now + ms;
    for (;;) {
      let next = null;
      for (const [id, timer] of this.timers) {
        if (next === null || timer.due < next[1].due) next = [id, timer];
      }
      if (next === null || next[1].due > target) break;
      this.timers.delete(next[0]);
      this.now = next[1].due;
      next[1].fn();
    }
    this.now = target;
  }
}

function describe(snapshot) {
  return { value: snapshot.value, context: snapshot.context ?? null, status: snapshot.status };
}

function runCase(testCase) {
  const machine = setup({ guards: guardsWithOverrides(testCase.guards), actions, delays, actors })
    .createMachine(toStateConfig(unwrap(testCase.config)));
  const clock = new RealTimeOrderClock();
  const actor = createActor(machine, { clock, input: testCase.input });
  let seen = [];
  actor.subscribe({
    next: (snapshot) => seen.push(describe(snapshot)),
    error: () => seen.push(describe(actor.getSnapshot())),
  });
  actor.start();
  const start = describe(actor.getSnapshot());
  const items = [];
  for (const item of testCase.script) {
    const events = [];
    seen = []; // notifications of sent events are read from getSnapshot() instead
    for (const event of item.events ?? []) {
      actor.send(typeof event === "string" ? { type: event } : event);
      events.push(describe(actor.getSnapshot()));
    }
    seen = [];
    if (item.advanceMs) clock.advance(item.advanceMs);
    items.push({ events, timers: seen });
  }
  return { name: testCase.name, start, items };
}

const cases = JSON.parse(readFileSync(0, 'utf8'));
process.stdout.write(`${JSON.stringify(cases.map(runCase))}\n`);
