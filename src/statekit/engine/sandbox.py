"""The JavaScript sandbox for inline machine code: QuickJS (quickjs-ng), no host access.

Why QuickJS: it has no I/O of any kind (no fs, network, timers, require, process), a
per-call time limit, a memory limit and a stack limit, and a call costs microseconds; V8
through mini-racer is 300x dearer per call, 80 MB larger and exposes more host API (see the
project's research notes on sandboxes). Data crosses the boundary as JSON: functions receive
`{context, event, ...}` and `params` parsed from JSON and return a JSON value. (A guard that
reads its arguments only as `context.name` / `event.name` gets those values alone, each as JSON
or, a plain scalar, as itself: `JsSandbox.guard_passes`.)

A context is single-threaded; each `JsSandbox` belongs to one simulation run, and every
context lives on one worker thread with a large C stack (see `WORKER_STACK_SIZE`).
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from statekit.engine.evaluation import UNDEFINED
from statekit.errors import EngineError

DEFAULT_TIME_LIMIT = 0.5  # seconds per call
DEFAULT_TOTAL_TIME_LIMIT = 10.0  # seconds for all calls of one sandbox (one simulation run)
DEFAULT_MEMORY_LIMIT = 32 * 1024 * 1024
DEFAULT_STACK_LIMIT = 512 * 1024
MAX_SOURCE_CHARS = 100_000
#: The C stack of the thread that runs QuickJS. QuickJS checks its own stack limit, but a
#: thread whose stack is smaller than that limit (musl's default is 128 KB; a server may set
#: less) overflows the C stack first and the process dies with SIGSEGV. A sandbox first used
#: on the main thread with a large stack (`ulimit -s`) runs there; any other runs on one
#: worker thread with a stack far above the limit (a thread hop costs some 80 us a call).
WORKER_STACK_SIZE = 16 * 1024 * 1024
_MAIN_THREAD_STACK_NEEDED = 4 * 1024 * 1024
_ON_WORKER = -1

_worker: ThreadPoolExecutor | None = None
_worker_pid = 0
_worker_lock = threading.Lock()


def _js_thread() -> ThreadPoolExecutor:
    """The single worker thread that owns every QuickJS runtime (created in this process)."""
    global _worker, _worker_pid
    with _worker_lock:
        if _worker is None or _worker_pid != os.getpid():  # a forked child has no such thread
            previous = threading.stack_size()
            try:
                threading.stack_size(WORKER_STACK_SIZE)
                worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="statekit-js")
                worker.submit(lambda: None).result()  # start the thread while the size holds
            finally:
                threading.stack_size(previous)
            _worker, _worker_pid = worker, os.getpid()
        return _worker


def _main_thread_stack_is_large() -> bool:
    try:
        import resource
    except ImportError:  # pragma: no cover - not on POSIX
        return False
    soft, _ = resource.getrlimit(resource.RLIMIT_STACK)
    return bool(soft == resource.RLIM_INFINITY or soft >= _MAIN_THREAD_STACK_NEEDED)

# Compiles each source once, then calls it with JSON-parsed arguments. JSON has no `undefined`:
# it crosses both ways as the marker object `{"__statekit_undefined__": 0}` (revived in place only
# when the JSON holds one), and a whole result that is `undefined` as the string "undefined". The
# compiled-function cache and the JSON and Function constructors are captured in a closure, so
# inline code that rewrites globals (`JSON.stringify = ...`, `globalThis.__fns = ...`) cannot
# change what other inline functions of the same run receive or return.
UNDEFINED_KEY = "__statekit_undefined__"
#: How XState persists an actor reference in context (`{"xstate$$type": 1, "id": ...}`), and how
#: statekit's snapshots hold one; the sandbox revives it as a reference object.
ACTOR_REF_KEY = "xstate$$type"
#: Session ids (`x:<n>`) each context books from: a context made after a reset starts past them.
_SESSIONS_PER_CONTEXT = 1_000_000
_SPAWNED_PREFIX = "#spawned:"  # JSON text never starts with `#`
_WANTS_SNAPSHOT = "#wants-snapshot"


class SnapshotWanted(Exception):
    """Inline code called `self.getSnapshot()` in XState's pure transition before statekit computed
    the snapshot of the call's inert actor: the evaluator computes it and runs the code again."""
REF_PREFIX = "__statekit_ref:"
_PRELUDE = """
(function () {
  const fns = Object.create(null);
  const refs = new Map();
  let nextRef = 0;
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const keys = Object.keys;
  const isArray = Array.isArray;
  const FunctionConstructor = Function;
  const UNDEF = "__statekit_undefined__";
  const REF = "__statekit_ref:";
  const MARKER = { [UNDEF]: 0 };
  const isMarker = function (v) { return !isArray(v) && v[UNDEF] === 0 && keys(v).length === 1; };
  const revive = function (value) {
    if (value === null || typeof value !== "object") return value;
    if (isMarker(value)) return undefined;
    if (isRefJson(value)) return actorRef(value.id);
    const names = isArray(value) ? null : keys(value);
    const count = names === null ? value.length : names.length;
    for (let i = 0; i < count; i++) {
      const key = names === null ? i : names[i];
      const item = value[key];
      if (item !== null && typeof item === "object") value[key] = revive(item);
    }
    return value;
  };
  const load = function (json, marked) {
    if (json === "undefined") return undefined;
    const value = parse(json);
    return marked ? revive(value) : value;
  };
  const keepUndefined = function (key, value) { return value === undefined ? MARKER : value; };
  const dump = function (result) {
    if (result === undefined) return "undefined";
    const kind = typeof result;
    if (result === null || kind === "boolean" || kind === "number" || kind === "string") return stringify(result);
    return stringify(result, keepUndefined);
  };
  // The source must be one expression: compiled (not run) inside brackets, a `)` that would
  // close the parenthesis below early is a syntax error, so no statement runs at compile time.
  // The names a function closes over, per source (`({ context }) => context.n + amount` made by
  // `incrementBy(5)` closes over `amount`: 5): bound as parameters of the function that makes it.
  const closures = Object.create(null);
  const compile = function (source) {
    // Strict, as an ES module is: assigning to a `const` or an undeclared name throws.
    new FunctionConstructor("\\"use strict\\"; return [" + source + "\\n];");
    const body = "\\"use strict\\"; return (" + source + "\\n);";
    const closed = closures[source];
    if (closed === undefined) return new FunctionConstructor(body)();
    const names = keys(closed);
    const maker = FunctionConstructor.apply(null, names.concat([body]));
    return maker.apply(null, names.map(function (name) { return closed[name]; }));
  };
  globalThis.__closures = function (json) {
    const table = parse(json);
    for (const source of keys(table)) closures[source] = table[source];
  };
  const lookup = function (source) {
    if (source.startsWith(REF)) {
      // A function an enqueueActions body enqueued (an assign value, an event creator): used once.
      const fn = refs.get(source);
      if (fn === undefined) throw new ReferenceError("an enqueued function is no longer available");
      refs.delete(source);
      return fn;
    }
    let fn = fns[source];
    if (fn === undefined) {
      fn = compile(source);
      if (typeof fn !== "function") throw new TypeError("inline code is not a function");
      fns[source] = fn;
    }
    return fn;
  };
  // The actor, as XState hands it to inline code. `self` and the actors `spawn` creates are
  // references (`{xstate$$type: 1, id}` in JSON, as XState persists them in context). Which names
  // a call gets follows XState: assign {spawn, self, system}, a context factory {spawn, self}, an
  // output or an invoke's input {self}, the other action fields (a target, an event, a delay)
  // {self, system}. What they do depends on the call's scope (`env.scope`):
  // - "inert": XState's pure `initialTransition`/`transition` (`createInertActorScope`). `self` is an
  //   actor made for the call and never started, as is every actor the call makes: `send` leaves the
  //   event in a mailbox nobody reads; `self.getSnapshot()` is that actor's own snapshot, the
  //   machine's initial snapshot computed without input when it was made (statekit computes it
  //   when first asked, `env.snapshot`; while computing it, `env.initializing`, reading it throws
  //   as XState's does); `system` is a fresh system per call, holding only the actors this call
  //   registered under a system id (`env.system`: systemId -> actor id, or null when statekit
  //   cannot tell whether the actor started, which XState's system forgets).
  // - "running": a running actor (statekit's Actor, simulate_machine): `send`, `getSnapshot` and
  //   `system` would act on it, which statekit does not run, so they throw instead of answering.
  // A refusal is remembered: code that catches it still fails once it returns (see `__call`).
  let refusal = null;
  const refuse = function (message) {
    refusal = message;
    throw new ReferenceError(message);
  };
  const NOT_SIMULATED = function (what) {
    return function () {
      refuse(what + " needs actor logic statekit does not run: inline code that uses it cannot be run faithfully");
    };
  };
  const RUNNING = function (what) {
    return function () {
      refuse(what + " acts on the running actor, which statekit's Actor and simulate_machine do not run (its pure "
        + "initial_transition and transition follow XState's, whose actor never starts): inline code that calls it "
        + "cannot be run faithfully here");
    };
  };
  let current = null;  // the env of the call being run
  const isInert = function () { return current !== null && current.scope === "inert"; };
  // Thrown (once per call) when `self.getSnapshot()` needs the snapshot statekit has not computed
  // yet: the call ends, statekit computes it and runs the call again (see `__call`).
  const WANTS_SNAPSHOT = {};
  let wantsSnapshot = false;
  let nextSession = 0;
  // A context made again after a fatal error (out of time or memory) goes on from where the
  // snapshots' session ids cannot reach, so a new actor never takes an old one's id.
  globalThis.__firstSession = function (n) { nextSession = n; };
  // A session id as XState books them (`x:<n>`); XState's counter is global to the process.
  const sessionId = function () { return "x:" + (nextSession++); };
  const REF_TYPE = "xstate$$type";
  const hidden = function (target, name, value) {
    Object.defineProperty(target, name, { value: value, enumerable: false, writable: false });
  };
  const send = function (event) {
    if (!isInert()) RUNNING("send() on an actor")();
    if (typeof event === "string") {
      throw new Error('Only event objects may be sent to actors; use .send({ type: "' + event + '" }) instead');
    }
  };
  // XState's matchesState (a state value given as a string with dots is a path).
  const toStateValue = function (value) {
    if (typeof value !== "string") return value;
    if (value.indexOf("\\\\") >= 0) NOT_SIMULATED("matches() with an escaped state key")();
    const path = value.split(".");
    let out = path[path.length - 1];
    for (let i = path.length - 2; i >= 0; i--) out = { [path[i]]: out };
    return out;
  };
  const matchesState = function (parent, child) {
    const p = toStateValue(parent);
    const c = toStateValue(child);
    if (typeof c === "string") return typeof p === "string" && c === p;
    if (typeof p === "string") return p in c;
    return keys(p).every(function (key) { return key in c && matchesState(p[key], c[key]); });
  };
  // What XState's snapshot object has that statekit's view of it does not give: reading it throws.
  const NOT_IN_VIEW = ["historyValue", "machine", "_nodes", "getMeta", "toJSON", "can"];
  let viewCall = null;
  let view = null;
  const snapshotView = function () {
    if (viewCall === current.call && view !== null) return view;  // one object per call, as XState's
    const data = load(current.snapshot, true);
    const tags = new Set(data.tags);
    const children = {};
    for (const id of data.children) children[id] = actorRef(id);
    const fields = {
      status: data.status, value: data.value, context: data.context, output: data.output,
      tags: tags,
      matches: function (value) { return matchesState(value, data.value); },
      hasTag: function (tag) { return tags.has(tag); },
    };
    const unknown = {
      // statekit's error is a message, XState's the thrown value itself
      error: data.status === "error" ? "error" : null,
      // an actor spawned without an id is `children.undefined`, whose id statekit does not know
      children: data.children.indexOf("undefined") >= 0 ? "children" : null,
      // a done machine's output statekit holds as null may have been undefined
      output: data.status === "done" && data.output === null ? "output" : null,
    };
    if (unknown.children === null) fields.children = children;
    view = new Proxy(fields, {
      get: function (target, name) {
        if (typeof name === "string" && (NOT_IN_VIEW.indexOf(name) >= 0 || unknown[name])) {
          NOT_SIMULATED("the snapshot's " + name + " (statekit gives status, value, context, output, children, "
            + "tags, matches and hasTag)")();
        }
        return target[name];
      },
    });
    viewCall = current.call;
    return view;
  };
  const getSelfSnapshot = function () {
    if (!isInert()) RUNNING("getSnapshot() on an actor")();
    if (current.initializing) throw new Error("Snapshot can't be read while the actor initializes itself");
    if (typeof current.snapshot !== "string") {
      wantsSnapshot = true;
      throw WANTS_SNAPSHOT;
    }
    return snapshotView();
  };
  const actorRef = function (id, isSelf) {
    const ref = {};
    Object.defineProperty(ref, "id", { value: id, enumerable: true });
    hidden(ref, "toJSON", function () { return { [REF_TYPE]: 1, id: id }; });
    hidden(ref, "send", send);
    // (another actor's snapshot is its logic's, which the pure transition never runs)
    hidden(ref, "getSnapshot", isSelf ? getSelfSnapshot : NOT_SIMULATED("getSnapshot() on an actor"));
    hidden(ref, "subscribe", NOT_SIMULATED("subscribe() on an actor"));
    hidden(ref, "on", NOT_SIMULATED("on() on an actor"));
    return ref;
  };
  const isRefJson = function (v) {
    return !isArray(v) && v[REF_TYPE] === 1 && typeof v.id === "string" && keys(v).length === 2;
  };
  // XState's pure transition makes a new actor (`self`) per call; a running actor is one actor.
  let selfRef = null;
  let selfCall = null;
  const self = function () {
    if (selfRef === null || selfCall !== current.call) {
      selfRef = actorRef(sessionId(), true);
      selfCall = current.call;
    }
    return selfRef;
  };
  // Actor logic written inline (`fromPromise(...)`): never run by the pure transition, so it is
  // kept as what it is; JSON shows it as `{}`, as it shows XState's logic objects.
  const LOGIC = typeof Symbol === "function" ? Symbol("statekit.logic") : "__statekit_logic__";
  const logic = function (kind) {
    return function () {
      const made = {};
      hidden(made, LOGIC, kind);
      return made;
    };
  };
  // Whether a child machine's config (its data or the source of its functions) names a system id.
  const mentionsSystemId = function (value, depth) {
    if (depth > 60) return true;  // too deep to tell: refuse
    if (typeof value === "function") return String(value).indexOf("systemId") >= 0;
    if (value === null || typeof value !== "object") return false;
    for (const key of keys(value)) {
      if (key === "systemId" || mentionsSystemId(value[key], depth + 1)) return true;
    }
    return false;
  };
  const isLogic = function (v) { return v !== null && typeof v === "object" && typeof v[LOGIC] === "string"; };
  const HELPERS = {
    fromPromise: logic("fromPromise"),
    fromCallback: logic("fromCallback"),
    fromObservable: logic("fromObservable"),
    fromEventObservable: logic("fromEventObservable"),
    fromTransition: logic("fromTransition"),
    // XState makes a child machine eagerly (`createActor` computes its initial snapshot) but
    // catches whatever that throws into the child's own snapshot, and never starts it in a pure
    // transition: its code cannot change the parent's trace. What can is an actor the child's
    // start registers under a system id in the system it shares with the parent, so a child
    // that names a system id anywhere is refused.
    createMachine: function (config, implementations) {
      if (mentionsSystemId(config, 0) || mentionsSystemId(implementations, 0)) {
        throw new TypeError("a child machine that registers actors under a system id cannot be spawned "
          + "faithfully by statekit's simulation (they would share the parent's system)");
      }
      return logic("createMachine")();
    },
    // XState's assertEvent (5.33), word for word in what it throws; a type is an event
    // descriptor, matched as XState's `matchesEventDescriptor` ("*", "a.*").
    assertEvent: function (event, type) {
      const types = isArray(type) ? type : [type];
      const matches = function (descriptor) {
        if (descriptor === event.type || descriptor === "*") return true;
        if (!descriptor.endsWith(".*")) return false;
        const partial = descriptor.split(".");
        const tokens = String(event.type).split(".");
        for (let index = 0; index < partial.length; index++) {
          if (partial[index] === "*") return index === partial.length - 1;
          if (partial[index] !== tokens[index]) return false;
        }
        return true;
      };
      if (!types.some(matches)) {
        const typesText = types.length === 1 ? 'type matching "' + types[0] + '"'
          : 'one of types matching "' + types.join('", "') + '"';
        throw new Error("Expected event " + stringify(event) + " to have " + typesText);
      }
    },
  };
  // The xstate imports the module scope names (`moduleScope.unavailable`: "imported from 'xstate'").
  globalThis.__install = function (namesJson) {
    for (const name of parse(namesJson)) {
      if (name in HELPERS) {
        Object.defineProperty(globalThis, name, { value: HELPERS[name], writable: false, configurable: false });
      }
    }
  };
  // Module consts holding actor logic (`const child = fromPromise(...)`): the logic, not run.
  globalThis.__installLogic = function (namesJson) {
    const kinds = parse(namesJson);
    for (const name of keys(kinds)) {
      const make = kinds[name] === "custom" ? logic("custom") : HELPERS[kinds[name]];
      if (make === undefined) continue;
      Object.defineProperty(globalThis, name, { value: make(), writable: false, configurable: false });
    }
  };
  const hasOwn = function (object, key) { return Object.prototype.hasOwnProperty.call(object, key); };
  // Logic whose actor XState's system keeps once made: it starts active (a child machine may not).
  const STARTS_ACTIVE = ["fromPromise", "fromCallback", "fromObservable", "fromEventObservable", "fromTransition"];
  const spawner = function (env, args, spawned, local) {
    return function spawn(src, options) {
      const given = options === undefined || options === null ? {} : options;
      let input = given.input;
      if (typeof src === "string") {
        if (env.actors.indexOf(src) < 0) {
          throw new Error("Actor logic '" + src + "' not implemented in machine '" + env.machine + "'");
        }
        if (typeof input === "function") input = input({ context: args.context, event: args.event, self: self() });
      } else if (!isLogic(src)) {
        throw new TypeError("spawn() in statekit's simulation takes the name of an actor or inline actor logic "
          + "(fromPromise, fromCallback, fromObservable, fromEventObservable, fromTransition, createMachine); other "
          + "logic cannot be run faithfully");
      }
      if (typeof input === "function") throw new TypeError("an actor's input must be data");
      const id = given.id === undefined || given.id === null ? sessionId() : given.id;
      const kind = typeof src === "string" ? null : src[LOGIC];
      if (typeof given.systemId === "string") {
        // Registered at once (XState's createActor), so system.get later in this call finds it.
        local[given.systemId] = STARTS_ACTIVE.indexOf(kind) >= 0 ? id : null;
      }
      spawned.push({ id: id, src: typeof src === "string" ? src : null, input: input, systemId: given.systemId,
                     logic: kind });
      return actorRef(id);
    };
  };
  // XState's system, as far as statekit knows it: `get` and `getAll` (see the scope notes above).
  const NOT_IN_SYSTEM = ["inspect", "scheduler", "getSnapshot", "start", "_set", "_register", "_unregister",
                         "_relay", "_bookId", "_snapshot", "_sendInspectionEvent", "_clock", "_logger"];
  const registered = function (local) {
    const all = Object.create(null);
    const given = current.system;
    if (given !== undefined && given !== null) for (const key of keys(given)) all[key] = given[key];
    for (const key of keys(local)) all[key] = local[key];
    return all;
  };
  const systemFor = function (local) {
    const lookupId = function (systemId) {
      if (!isInert()) RUNNING("system.get()")();
      const all = registered(local);
      if (!hasOwn(all, systemId)) return undefined;
      if (all[systemId] === null) {
        NOT_SIMULATED("system.get() of an actor whose logic statekit does not run (XState's system drops one that "
          + "does not start active)")();
      }
      return actorRef(all[systemId]);
    };
    const fields = {
      get: lookupId,
      getAll: function () {
        if (!isInert()) RUNNING("system.getAll()")();
        const out = {};
        for (const key of keys(registered(local))) out[key] = lookupId(key);
        return out;
      },
    };
    return new Proxy(fields, {
      get: function (target, name) {
        if (typeof name === "string" && NOT_IN_SYSTEM.indexOf(name) >= 0) NOT_SIMULATED("system." + name)();
        return target[name];
      },
    });
  };
  const withActor = function (args, env, spawned) {
    if (args === null || typeof args !== "object") return args;
    const kind = env.kind;
    const local = Object.create(null);  // system ids this call registers
    if (kind === "assign" || kind === "context") args.spawn = spawner(env, args, spawned, local);
    args.self = self();
    if (kind === "assign" || kind === "action") args.system = systemFor(local);
    return args;
  };
  // A guard (context and event only, no actor): compiled once and called by number, so a call
  // carries neither its source text nor a lookup of it. It passes by JavaScript's truthiness of
  // what it returned (XState: `if (guardPassed)`), which crosses as a boolean.
  const byId = [];
  globalThis.__register = function (source) {
    byId.push(lookup(source));
    return byId.length - 1;
  };
  globalThis.__guard = function (id, argsJson, paramsJson, marked) {
    return !!byId[id](load(argsJson, marked), load(paramsJson, marked));
  };
  // A guard that reads its context and event only as `context.name` and `event.name`, never
  // calling them as methods (`_guard_reads` in sandbox.py), is given fresh objects holding just
  // the entries it reads, each value an argument of the call. Per such guard a caller is made
  // once (`names`: [slot, key, ...], slot 0 the context, 1 the event; the keys are plain ASCII
  // identifiers, never `__proto__`, so they are literal keys as JSON.parse would define them);
  // `kinds` says how each value came, 2 bits per value in order: 0 the value itself, 1 its JSON,
  // 2 absent (the key is not there: left out), 3 undefined.
  globalThis.__reads = function (id, namesJson) {
    const names = parse(namesJson);
    const values = [];
    const literal = [[], []];
    const general = [];
    for (let i = 0; i < names.length; i += 2) {
      const value = "v" + (i >> 1);
      const slot = names[i] % 2;
      let key = stringify(names[i + 1]);
      if (names[i] > 1) {  // the key is the argument before the value
        key = "k" + (i >> 1);
        values.push(key);
      }
      values.push(value);
      literal[slot].push((names[i] > 1 ? "[" + key + "]" : key) + ": " + value);
      general.push("k = (kinds >>> " + i + ") & 3; if (k !== 2) " + (slot === 0 ? "context" : "event") + "["
        + key + "] = k === 0 ? " + value + " : k === 1 ? load(" + value + ", marked) : undefined;");
    }
    const body = "return function (kinds, paramsJson, marked" + values.map(function (v) { return ", " + v; }).join("")
      + ") { if (kinds === 0) return !!fn({ context: { " + literal[0].join(", ") + " }, event: { "
      + literal[1].join(", ") + " } }, load(paramsJson, marked)); const context = {}; const event = {}; let k; "
      + general.join(" ") + " return !!fn({ context: context, event: event }, load(paramsJson, marked)); };";
    return new FunctionConstructor("fn", "load", body)(byId[id], load);
  };
  // XState's assign takes `Object.assign({}, context, returned)` of the context object the
  // function received: one that changed it in place keeps the change, whether it returned
  // nothing or some keys. Such a function's result comes back with that context (the key is
  // statekit.engine.evaluation's ASSIGNED_CONTEXT_KEY); whether it may change it is read from its
  // source, conservatively: `context` used whole (passed on, spread, aliased), or a member of it
  // assigned, incremented, deleted or called (`context.items.push(...)`).
  const mayWrite = new WeakMap();
  const BARE = /\\bcontext\\b(?!\\s*(?:\\.|\\?\\.|\\[))/;
  const WRITES = /\\bcontext\\b(?:\\s*(?:\\??\\.\\s*[\\w$]+|\\[[^\\]]*\\]))*\\s*(?:=(?![=>])|\\+\\+|--|(?:\\*\\*|<<|>>>?|&&|\\|\\||\\?\\?|[-+*\\/%&|^])=|\\()|(?:\\+\\+|--|\\bdelete)\\s*context\\b/;
  const assigned = function (fn, args, result) {
    if (result === undefined || result === null) return { "xstate$$assignedContext": args.context };
    let writes = mayWrite.get(fn);
    if (writes === undefined) {
      const source = String(fn);
      const arrow = source.indexOf("=>");
      const body = arrow >= 0 ? source.slice(arrow + 2) : source;
      writes = BARE.test(body) || WRITES.test(body);
      mayWrite.set(fn, writes);
    }
    return writes ? { "xstate$$assignedContext": args.context, value: result } : result;
  };
  const envs = new Map();
  globalThis.__call = function (source, argsJson, paramsJson, marked, envJson) {
    const fn = lookup(source);
    if (envJson === null || envJson === undefined) {
      current = null;
      return dump(fn(load(argsJson, marked), load(paramsJson, marked)));
    }
    const spawned = [];
    let env = envs.get(envJson);  // one per machine, kind of code and call: parsed once
    if (env === undefined) {
      env = parse(envJson);
      if (envs.size >= 64) envs.clear();
      envs.set(envJson, env);
    }
    current = env;
    wantsSnapshot = false;
    refusal = null;
    let result;
    try {
      const args = withActor(load(argsJson, marked), env, spawned);
      result = fn(args, load(paramsJson, marked));
      if (env.assigns === true && args !== null && typeof args === "object") result = assigned(fn, args, result);
      result = dump(result);
    } catch (thrown) {
      if (wantsSnapshot) return "#wants-snapshot";
      throw thrown;
    } finally {
      current = null;
    }
    // (even if the code caught what was thrown)
    if (wantsSnapshot) return "#wants-snapshot";
    if (refusal !== null) throw new ReferenceError(refusal);
    if (spawned.length === 0) return result;
    // (joined, not `+`: QuickJS makes a long `+` a rope string, which the Python binding cannot take)
    return ["#spawned:", stringify({ value: result, spawned: spawned }, keepUndefined)].join("");
  };
  // What enqueueActions' `enqueue` builds, as statekit action configs; functions inside them
  // (assign values, event creators, inline custom actions) stay here and travel as references.
  const keep = function (fn) {
    if (refs.size > 100000) refs.clear();
    const id = REF + (nextRef++);
    refs.set(id, fn);
    return { "$js": id };
  };
  const encodeFunctions = function (key, value) {
    if (value === undefined) return MARKER;
    if (typeof value === "function") return keep(value);
    return value;
  };
  const builtin = function (type, fields) {
    const action = { type: type };
    for (const name of keys(fields)) if (fields[name] !== undefined) action[name] = fields[name];
    return action;
  };
  // XState's action creators as statekit action configs: `enqueue.raise(...)`, and the imported
  // `raise(...)` / `assign(...)` an enqueueActions body passes to `enqueue(...)`.
  const options = function (o) { return o === undefined || o === null ? {} : o; };
  const CREATORS = {
    assign: function (assignment) { return builtin("xstate.assign", { assignment: assignment }); },
    cancel: function (sendId) { return builtin("xstate.cancel", { sendId: sendId }); },
    raise: function (event, o) {
      return builtin("xstate.raise", { event: event, delay: options(o).delay, id: options(o).id });
    },
    sendTo: function (to, event, o) {
      return builtin("xstate.sendTo", { to: to, event: event, delay: options(o).delay, id: options(o).id });
    },
    sendParent: function (event, o) {
      return builtin("xstate.sendParent", { event: event, delay: options(o).delay, id: options(o).id });
    },
    spawnChild: function (src, o) {
      const given = options(o);
      return builtin("xstate.spawnChild", { src: src, id: given.id, input: given.input, systemId: given.systemId });
    },
    stopChild: function (actorRef) { return builtin("xstate.stopChild", { actorRef: actorRef }); },
    emit: function (event) { return builtin("xstate.emit", { event: event }); },
  };
  for (const name of keys(CREATORS)) HELPERS[name] = CREATORS[name];
  // `check(guard)` for a named guard needs the algorithm (Python), which QuickJS cannot call under
  // a time limit: the body is replayed with the answers known so far, and the first unanswered
  // check ends the run with {check: guard}; the body is a pure function of its arguments.
  globalThis.__enqueue = function (source, argsJson, paramsJson, marked, answersJson, envJson) {
    const fn = lookup(source);
    current = envJson === null || envJson === undefined ? null : parse(envJson);
    wantsSnapshot = false;
    refusal = null;
    const out = [];
    const enqueue = function (action) {
      if (typeof action === "function") {
        // Kept here, as a reference: an actor that executes the action runs it (once).
        out.push({ type: action.name || "(anonymous)", code: keep(action)["$js"] });
      } else {
        out.push(action);
      }
    };
    for (const name of keys(CREATORS)) {
      const create = CREATORS[name];
      enqueue[name] = function () { out.push(create.apply(null, arguments)); };
    }
    const args = load(argsJson, marked);
    const answers = parse(answersJson);
    let asked = 0;
    const unanswered = {};
    const given = { context: args.context, event: args.event, enqueue: enqueue };
    given.check = function (guard) {
      if (typeof guard === "function") return !!guard({ context: args.context, event: args.event }, undefined);
      if (asked < answers.length) return answers[asked++];
      unanswered.guard = guard;
      throw unanswered;
    };
    if (current !== null) {  // the actor's `self` and `system`, as XState's enqueueActions gives them
      given.self = self();
      given.system = systemFor(Object.create(null));
    }
    try {
      fn(given, load(paramsJson, marked));
    } catch (thrown) {
      if (wantsSnapshot) return "#wants-snapshot";
      if (thrown === unanswered) return stringify({ check: unanswered.guard });
      throw thrown;
    } finally {
      current = null;
    }
    if (wantsSnapshot) return "#wants-snapshot";
    if (refusal !== null) throw new ReferenceError(refusal);
    return stringify({ actions: out }, encodeFunctions);
  };
})();
"""


class JsSandbox:
    """A `CodeEvaluator` that runs inline JavaScript in QuickJS with limits.

    One sandbox is one persistent QuickJS context for one run (a simulation, a test case):
    compiled functions, the module-scope `constants` the inline code reads, and the functions an
    `enqueueActions` body enqueued live in it from call to call. `time_limit` bounds each call,
    `total_time_limit` all calls of the run together (both in seconds; pass them per run).
    `constants` are module-scope constants read by inline functions (JSON values, defined
    read-only as globals); `unavailable` maps other module-scope names the code reads to why
    statekit cannot carry them, and reading one throws a ReferenceError that says so.
    `running_actor`: the code runs for a running actor, not XState's pure transition.
    """

    def __init__(self, *, time_limit: float = DEFAULT_TIME_LIMIT, memory_limit: int = DEFAULT_MEMORY_LIMIT,
                 stack_limit: int = DEFAULT_STACK_LIMIT, total_time_limit: float = DEFAULT_TOTAL_TIME_LIMIT,
                 constants: Mapping[str, Any] | None = None, unavailable: Mapping[str, str] | None = None,
                 running_actor: bool = False) -> None:
        self.time_limit = time_limit
        #: Whether the code runs for a running actor (simulate_machine, a live session), not for
        #: XState's pure transition: then `self.send`, `self.getSnapshot()` and `system.get`
        #: are refused (see `statekit.engine.evaluation.ActorScope`).
        self.running_actor = running_actor
        self.total_time_limit = total_time_limit
        self._spent = 0.0
        self.memory_limit = memory_limit
        self.stack_limit = stack_limit
        self.constants: dict[str, Any] = dict(constants or {})
        self.unavailable: dict[str, str] = dict(unavailable or {})
        self.closures: dict[str, dict[str, Any]] = {}
        self.logic: dict[str, str] = {}
        #: How many QuickJS contexts this sandbox has made (one, unless a fatal error reset it).
        self._contexts = 0
        self._context: Any = None
        self._call: Any = None
        self._enqueue: Any = None
        self._guard: Any = None
        self._register: Any = None
        #: Guard source -> its number in the current context's function table (see `guard_passes`),
        #: and, for a guard that reads only entries of its arguments (`_guard_reads`), those entries
        #: and its caller in the context (see `__reads` in the prelude).
        self._guard_ids: dict[str, tuple[int, tuple[tuple[int, str], ...] | None, Any]] = {}
        self._reads: Any = None
        #: The thread the context lives on: a thread id, or _ON_WORKER; None before the first call.
        self._owner: int | None = None
        self._params_cache: dict[int, tuple[Any, str]] = {}
        self._encoder = _c_encoder()
        #: The actors inline code spawned, until the evaluator takes them (`take_spawned`).
        self.spawned: list[dict[str, Any]] = []
        self._mutable_state: bool | None = None

    @property
    def has_mutable_state(self) -> bool:
        """Whether inline code can change state that outlives a call: a module constant or a closed-over
        value that is an object or an array (`LIST.push(x)` persists, as in the module)."""
        known = self._mutable_state  # asked on every call of the pure API: worked out once (`define` resets it)
        if known is None:
            values = [*self.constants.values(), *(value for names in self.closures.values() for value in names.values())]
            known = self._mutable_state = any(isinstance(value, dict | list) for value in values)
        return known

    def define(self, constants: Mapping[str, Any], unavailable: Mapping[str, str] | None = None,
               closures: Mapping[str, Mapping[str, Any]] | None = None,
               logic: Mapping[str, str] | None = None) -> None:
        """Add module-scope constants (and names that cannot be carried) before the first call;
        `closures` maps a function's source to the names it closes over (a factory's arguments);
        `logic`: consts holding actor logic made by an XState creator (`{name: "fromPromise"}`)."""
        if self._context is not None:
            raise EngineError("module constants must be defined before the sandbox runs code")
        self.constants.update(constants)
        self._mutable_state = None
        self.unavailable.update(unavailable or {})
        self.closures.update({code: dict(names) for code, names in (closures or {}).items()})
        self.logic.update(logic or {})

    def _function(self) -> Any:
        if self._call is None:
            try:
                import quickjs
            except ImportError:  # pragma: no cover - a dependency of the package
                raise EngineError("the JavaScript sandbox (quickjs-ng) is not installed") from None
            context = quickjs.Context()
            context.set_memory_limit(self.memory_limit)
            context.set_max_stack_size(self.stack_limit)
            context.set_time_limit(self.time_limit)
            context.eval(_PRELUDE)
            if self._contexts:
                context.eval(f"__firstSession({self._contexts * _SESSIONS_PER_CONTEXT});")
            self._contexts += 1
            context.eval(_globals_source(self.constants, self.unavailable, self.closures, self.logic))
            self._context = context
            self._call = context.get("__call")
            self._enqueue = context.get("__enqueue")
            self._guard = context.get("__guard")
            self._register = context.get("__register")
            self._reads = context.get("__reads")
            self._guard_ids = {}  # numbers of the functions compiled in this context
        return self._call

    def _run(self, code: str, args_json: str, params_json: str, marked: bool, where: str,
             answers: str | None = None, actor: str | None = None) -> Any:
        """One call, on the thread that owns the context."""
        if self._spent > self.total_time_limit:
            # Each call is limited, and so is their sum: an `always` loop of cheap calls ends too.
            raise EngineError(f"inline code{_at(where)} was not run: this run's inline code used up its "
                              f"{self.total_time_limit:g} s budget")
        call = self._function()
        started = time.monotonic()
        try:
            if answers is not None:
                return self._enqueue(code, args_json, params_json, marked, answers, actor)
            return call(code, args_json, params_json, marked, actor)
        except EngineError:
            raise
        except Exception as error:  # quickjs.JSException, StackOverflow
            if _is_fatal(error):
                self._call = None  # a context that ran out of memory or time is not reused
                self._context = None
            raise EngineError(f"inline code{_at(where)} failed: {_describe(error)}") from None
        finally:
            self._spent += time.monotonic() - started

    def guard_passes(self, code: str, context: Any, event: Any, params: Any, where: str) -> bool:
        """Whether the guard `code` passes on `{context, event}` and `params`: JavaScript's
        truthiness of its result (XState's `if (guardPassed)`), given no actor.

        The function is compiled once and called by number. A guard whose source reads its
        arguments only as `context.name` / `event.name` (`_guard_reads`) is given fresh objects
        holding just those entries, each value crossing by itself: as an argument when the QuickJS
        binding converts it exactly as JSON.parse would (a `str`, `bool`, `None`, a finite
        `float`, a 32-bit `int`), else as JSON. Any other guard gets `{context, event}` as JSON.
        Either way it answers as `evaluate` on the whole context would (`undefined` kept), and
        nothing it writes into its arguments reaches the engine or another call."""
        if (self._owner != threading.get_ident() or self._guard is None) and not self._runs_here():
            passed: bool = _js_thread().submit(self.guard_passes, code, context, event, params, where).result()
            return passed
        if self._spent > self.total_time_limit:
            raise EngineError(f"inline code{_at(where)} was not run: this run's inline code used up its "
                              f"{self.total_time_limit:g} s budget")
        if self._call is None:
            self._function()
        registered = self._guard_ids.get(code)
        reads = registered[1] if registered is not None else _guard_reads(code)
        try:
            if params is None or params is UNDEFINED:
                params_json = "undefined"
            else:
                cached = self._params_cache.get(id(params))
                params_json = cached[1] if cached is not None and cached[0] is params else self._params_json(params)
            marked = UNDEFINED_KEY in params_json or ACTOR_REF_KEY in params_json
            if reads is not None and type(context) is dict and type(event) is dict:
                # The caller's arguments: (kinds, params JSON, marked, each value read...).
                call: list[Any] = [0, params_json, marked]
                kinds = 0
                shift = 0
                for slot, name in reads:
                    key: Any = name
                    if slot > 1:  # `context[params.name]` / `event[params.name]`: the key is a param's value
                        key = params.get(name, _ABSENT) if type(params) is dict else _ABSENT
                        if type(key) is not str or key in _KEYS_JSON_MAKES:
                            reads = None  # not a key the text pins down: everything, as JSON
                            break
                        call.append(key)
                        slot -= 2
                    value = (event if slot else context).get(key, _ABSENT)
                    kind = type(value)
                    if (kind is str or kind is bool or value is None
                            or (kind is int and _INT32_MIN <= value <= _INT32_MAX)
                            or (kind is float and value - value == 0.0)):
                        call.append(value)
                    elif value is _ABSENT:
                        kinds |= 2 << shift
                        call.append(None)
                    elif value is UNDEFINED:
                        kinds |= 3 << shift
                        call.append(None)
                    else:  # a container, a large int, a subclass, NaN (refused by the encoder)...
                        encoded = self._encode_json(value)
                        kinds |= 1 << shift
                        call.append(encoded)
                        if UNDEFINED_KEY in encoded or ACTOR_REF_KEY in encoded:
                            call[2] = True
                    shift += 2
                call[0] = kinds
            else:
                reads = None
            if reads is None:
                args_json = self._encode_json({"context": context, "event": event})
                marked = marked or UNDEFINED_KEY in args_json or ACTOR_REF_KEY in args_json
        except (TypeError, ValueError):
            raise EngineError(f"inline code{_at(where)} can only receive JSON data") from None
        started = time.monotonic()
        try:
            if registered is None:  # compiled (and checked to be a function) on first use, as `__call` does
                if len(code) > MAX_SOURCE_CHARS:
                    raise EngineError(f"inline code{_at(where)} is longer than {MAX_SOURCE_CHARS} characters")
                number = self._register(code)
                known = _guard_reads(code)
                caller = None if known is None else self._reads(number, json.dumps([p for read in known for p in read]))
                registered = self._guard_ids[code] = (number, known, caller)
            if reads is not None:
                return registered[2](*call) is True
            return self._guard(registered[0], args_json, params_json, marked) is True
        except EngineError:
            raise
        except Exception as error:  # quickjs.JSException, StackOverflow
            if _is_fatal(error):
                self._call = None
                self._context = None
            raise EngineError(f"inline code{_at(where)} failed: {_describe(error)}") from None
        finally:
            self._spent += time.monotonic() - started

    def _runs_here(self) -> bool:
        """Whether a call made now runs on this thread (else on the worker thread); the first call
        places the context."""
        here = threading.get_ident()
        if self._owner is None:
            on_main = threading.current_thread() is threading.main_thread()
            self._owner = here if on_main and _main_thread_stack_is_large() else _ON_WORKER
        elif self._owner not in (here, _ON_WORKER):
            # A QuickJS runtime must stay on one thread: move to the worker with a new context.
            self._owner, self._call, self._context = _ON_WORKER, None, None
        # (also a call made from inside a call, e.g. a guard that check() evaluates)
        return self._owner == here or (self._owner == _ON_WORKER and _on_js_thread())

    def _dispatch(self, code: str, args: Mapping[str, Any], params: Any, where: str, answers: str | None,
                  actor: str | None = None) -> Any:
        if len(code) > MAX_SOURCE_CHARS:
            raise EngineError(f"inline code{_at(where)} is longer than {MAX_SOURCE_CHARS} characters")
        try:
            # allow_nan=False: NaN and Infinity are not JSON (JSON.parse would refuse them later).
            args_json = self._args_json(args)
            params_json = "undefined" if params is None or params is UNDEFINED else self._params_json(params)
        except (TypeError, ValueError):
            raise EngineError(f"inline code{_at(where)} can only receive JSON data") from None
        # Revived in place: `undefined` markers, and actor references (`{"xstate$$type": 1, id}`).
        marked = (UNDEFINED_KEY in args_json or UNDEFINED_KEY in params_json or ACTOR_REF_KEY in args_json
                  or ACTOR_REF_KEY in params_json)
        if self._runs_here():
            result = self._run(code, args_json, params_json, marked, where, answers, actor)
        else:
            result = _js_thread().submit(self._run, code, args_json, params_json, marked, where, answers,
                                         actor).result()
        if result == _WANTS_SNAPSHOT:
            raise SnapshotWanted
        if isinstance(result, str) and result.startswith(_SPAWNED_PREFIX):
            # The code spawned actors (`spawn(...)` in assign or a context factory): the value and them.
            spawned = json.loads(result[len(_SPAWNED_PREFIX):], object_hook=_revive)
            self.spawned.extend(spawned["spawned"])
            result = spawned["value"]
        return _decoded(result, where)

    def _args_json(self, args: Mapping[str, Any]) -> str:
        if len(args) == 2 and "context" in args and "event" in args:
            return self._pair_json(args["context"], args["event"])
        return self._encode_json(args)

    def _pair_json(self, context: Any, event: Any) -> str:
        # Encoded on every call: the same two objects may come again changed in place (an event
        # dict a caller reuses), so their identity says nothing about their JSON.
        return self._encode_json({"context": context, "event": event})

    def _encode_json(self, value: Any) -> str:
        """`_JSON.encode(value)`: JSON with `UNDEFINED` as its marker, NaN and Infinity refused."""
        encoder = self._encoder
        if encoder is None:  # pragma: no cover - not CPython
            return _JSON.encode(value)
        try:
            return "".join(encoder(value, 0))
        except BaseException:
            self._encoder = _c_encoder()  # a failed encoding may leave circular-reference markers set
            raise

    def _params_json(self, params: Any) -> str:
        """Params are mostly the machine's own data (`{type, params}` in the config), sent again
        and again: their JSON is kept per object (held, so its identity stays unique)."""
        cached = self._params_cache.get(id(params))
        if cached is not None and cached[0] is params:
            return cached[1]
        encoded = self._encode_json(params)
        if len(self._params_cache) >= _MAX_CACHED_PARAMS:
            self._params_cache.clear()
        self._params_cache[id(params)] = (params, encoded)
        return encoded

    def evaluate(self, code: str, args: Mapping[str, Any], params: Any, *, where: str = "",
                 actor: str | None = None) -> Any:
        """Run `code` (a function expression) on `args` and `params`; JSON in, JSON out.

        JS `undefined` comes back as `UNDEFINED` (and `UNDEFINED` goes in as `undefined`).
        `actor`: the JSON of the actor XState gives this code (`{"kind": "assign" | "context" |
        "action" | "output", "machine": id, "actors": [names], "scope": "inert" | "running",
        "call": n, "initializing": bool, "system": {systemId: id | null}, "snapshot": json}`; see
        the prelude): its `spawn` records the actors it creates in `spawned`, its `self` is a
        reference. None for a guard, which gets only context and event. Raises `SnapshotWanted`
        when the code needs the inert actor's snapshot and `actor` has none."""
        return self._dispatch(code, args, params, where, None, actor)

    def take_spawned(self) -> list[dict[str, Any]]:
        """The actors `spawn(...)` created since the last call of this, in order:
        `{id, src (a name, or None for inline logic), input, systemId}`."""
        spawned, self.spawned = self.spawned, []
        return spawned

    def enqueue(self, code: str, args: Mapping[str, Any], params: Any, *,
                check: Callable[[Any], bool] | None = None, actor: str | None = None) -> list[Any]:
        """Run an `enqueueActions(({enqueue, check, context, event, self, system}) => ...)` body.

        Returns what it enqueued, in order, as action configs; `check(guard)` asks `check`
        (the algorithm's guard evaluation). Functions it enqueued stay in this context and come
        back as `{"$js": reference}`, run (once) when the action is resolved. `actor`: as for
        `evaluate` (`self` and `system`; none without it)."""
        answers: list[bool] = []
        while True:
            result = self._dispatch(code, args, params, "an enqueueActions function", json.dumps(answers), actor)
            if isinstance(result, Mapping) and isinstance(result.get("actions"), list):
                return list(result["actions"])
            if not isinstance(result, Mapping) or "check" not in result:
                raise EngineError("an enqueueActions function gave no list of actions")
            if check is None:
                raise EngineError("check() inside an enqueueActions function needs the machine's guards")
            from statekit.model.parse import parse_guard

            answers.append(bool(check(parse_guard(result["check"], "check()"))))


def _decoded(result: Any, where: str) -> Any:
    """A call's result as Python data (JS `undefined` as `UNDEFINED`)."""
    if result == "undefined":
        return UNDEFINED
    if not isinstance(result, str):
        raise EngineError(f"inline code{_at(where)} returned a value that is not JSON")
    if result == "true":  # a guard's usual answers, without the JSON parser
        return True
    if result == "false":
        return False
    if UNDEFINED_KEY in result:
        return json.loads(result, object_hook=_revive)
    return json.loads(result)


def _on_js_thread() -> bool:
    return threading.current_thread().name.startswith("statekit-js")


#: One encoder for every call (json.dumps with options builds a new one each time).
#: allow_nan=False: NaN and Infinity are not JSON (JSON.parse would refuse them later).
_JSON: json.JSONEncoder  # set below, once `_encode` exists
_MAX_CACHED_PARAMS = 256
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1  # what the QuickJS binding converts exactly (it wraps others)
_ABSENT = object()  # a key a guard reads that is not there

#: A guard's head that destructures its first argument into `context` and/or `event`, without
#: defaults, renaming or nesting, and optionally names its params.
_READING_HEAD = re.compile(r"\s*\(\s*\{\s*(context|event)\s*(?:,\s*(context|event)\s*)?\}"
                           r"\s*(?:,\s*([A-Za-z_$][A-Za-z0-9_$]*)\s*)?\)\s*=>")
#: Where the body names `context` or `event` as a variable (not as a property: `x.event`).
_ARGUMENT_USE = re.compile(r"(?<![A-Za-z0-9_$.#])(context|event)(?![A-Za-z0-9_$])")
#: What must follow each such name: one property read by name (`.total`, `?.total`), not called
#: (a call of `context.f(...)`, also through parentheses or as a tag, gets the object as `this`).
_NOT_CALLED = r"(?![\s)]*(?:[(`]|\?\.\s*\())"
_MEMBER_READ = re.compile(r"\s*\??\.\s*([A-Za-z_$][A-Za-z0-9_$]*)(?![A-Za-z0-9_$])" + _NOT_CALLED)
#: What writes: `++`, `--`, `delete`, and (`_assigns`) an `=` that is not a comparison or `=>`.
_WRITES = re.compile(r"\+\+|--|\bdelete\b")
#: What reaches a name other than by its text (an escape, `eval`), uses an object whole without
#: naming it first (a spread `...context`), or could hide a call after a read (a comment:
#: `context.f /* */ ()` calls it as a method; `<!--` and `-->` are comments in a script too).
_HIDDEN_USE = re.compile(r"\\|\.\.\.|\beval\b|/\*|//|<!--|-->")
#: Names a key JSON could also come from (`None`, `True`, `False` keys of a dict), and the key a
#: plain assignment would take as the prototype.
_KEYS_JSON_MAKES = frozenset({"null", "true", "false", "__proto__"})
_MAX_READS = 15  # 2 bits each in the call's `kinds`


def _guard_reads(source: str) -> tuple[tuple[int, str], ...] | None:
    """The entries a guard reads, `(0, key)` of its context and `(1, key)` of its event, when
    its source shows that these are all it can observe of the two objects; None otherwise.
    `(2, name)` and `(3, name)` stand for `context[params.name]` and `event[params.name]`: the
    entry whose key is that param's value, in a body that writes nothing and uses its params
    only by name, so that the key JavaScript computes is the one the params hold.

    Read conservatively from the text (strings and comments included, so that some guards that
    would qualify do not): the source is ASCII, without escapes, spread or `eval`, starts
    `({ context, event }, params) =>` (either name or both, params optional), and every use of
    those two names in the body is a property read by name (`context.total`, `event?.amount`)
    that is not called as a method (`this` would be the object). So the objects themselves never
    reach any code, and fresh objects with just those entries (the same values; a key that is not
    there left out) give the guard the same answer as the whole context and event: what it
    writes into them stays in them. (Only inline code that rewrote a built-in prototype, e.g. a
    getter on `Object.prototype` that lists `this`, could tell them apart.)"""
    if not source.isascii():
        return None
    head = _READING_HEAD.match(source)
    if head is None or head.group(1) == head.group(2) or head.group(3) in ("context", "event"):
        return None
    names = {head.group(1), head.group(2)}
    body = source[head.end():]
    if _HIDDEN_USE.search(body):
        return None
    dynamic = None
    if head.group(3) is not None and _params_stay(body, head.group(3)):
        dynamic = re.compile(r"\s*(?:\?\.)?\s*\[\s*" + re.escape(head.group(3))
                             + r"\s*\.\s*([A-Za-z_$][A-Za-z0-9_$]*)\s*\]" + _NOT_CALLED)
    reads: list[tuple[int, str]] = []
    for use in _ARGUMENT_USE.finditer(body):
        if use.group(1) not in names:
            continue  # a free name (a global of that name), not the argument
        slot = 0 if use.group(1) == "context" else 1
        member = _MEMBER_READ.match(body, use.end())
        if member is None and dynamic is not None:
            member = dynamic.match(body, use.end())
            slot += 2
        if member is None or member.group(1) in _KEYS_JSON_MAKES:
            return None  # the object itself is used (or a key the text cannot pin down)
        read = (slot, member.group(1))
        if read not in reads:
            reads.append(read)
    return tuple(reads) if len(reads) <= _MAX_READS else None


def _params_stay(body: str, name: str) -> bool:
    """Whether `body` leaves its params as they came: it writes nothing at all, and names them
    only to read a property (`params.field`, not called), so no code it calls can reach them."""
    if _WRITES.search(body) or _assigns(body):
        return False
    for use in re.finditer(r"(?<![A-Za-z0-9_$.#])" + re.escape(name) + r"(?![A-Za-z0-9_$])", body):
        member = _MEMBER_READ.match(body, use.end())
        if member is None or member.group(1) in _KEYS_JSON_MAKES:
            return False
    return True


def _assigns(body: str) -> bool:
    """Whether `body` holds an `=` that is not part of `==`, `!=`, `<=`, `>=` or `=>`: an
    assignment (`=`, `+=`, `>>=`, `&&=`, ...)."""
    at = body.find("=")
    while at >= 0:
        before = body[at - 1] if at > 0 else ""
        after = body[at + 1] if at + 1 < len(body) else ""
        comparison = (after in ("=", ">") or before in ("=", "!")
                      or (before in ("<", ">") and (at < 2 or body[at - 2] not in ("<", ">"))))
        if not comparison:
            return True
        at = body.find("=", at + 1)
    return False


def _encode(value: Any) -> Any:
    if value is UNDEFINED:
        return {UNDEFINED_KEY: 0}
    raise TypeError(f"{type(value).__name__} is not JSON")


_JSON = json.JSONEncoder(ensure_ascii=False, allow_nan=False, default=_encode)


def _c_encoder() -> Callable[[Any, int], Any] | None:
    """CPython's C encoder with `_JSON`'s options. `JSONEncoder.encode` makes a new one on every
    call, which costs about as much as encoding a small context; a sandbox keeps one (its
    circular-reference markers are its own, so two threads never share them)."""
    import json.encoder

    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # pragma: no cover - CPython always has it
        return None
    # (markers, default, encoder, indent, key separator, item separator, sort_keys, skipkeys, allow_nan)
    encoder: Callable[[Any, int], Any] = make({}, _encode, json.encoder.encode_basestring, None, ": ", ", ",
                                              False, False, False)
    return encoder


def _revive(item: dict[str, Any]) -> Any:
    if len(item) == 1 and item.get(UNDEFINED_KEY) == 0:
        return UNDEFINED
    return item


def _globals_source(constants: Mapping[str, Any], unavailable: Mapping[str, str],
                    closures: Mapping[str, Mapping[str, Any]] | None = None,
                    logic: Mapping[str, str] | None = None) -> str:
    """JavaScript that defines the module constants (read-only bindings), the names that
    cannot be carried (reading one throws a ReferenceError naming it) and the closures."""
    # A `const` binding cannot be reassigned, but the object it holds can change (`LIST.push(x)`);
    # the context lives for the whole run, as the module would, so such changes persist.
    lines = ["(function () {"]
    for name, value in constants.items():
        if not _IDENTIFIER.match(name):
            continue
        try:
            encoded = json.dumps(value, ensure_ascii=False, allow_nan=False, default=_encode)
        except (TypeError, ValueError):
            unavailable = {**unavailable, name: "its value is not JSON data"}
            continue
        lines.append(f"  Object.defineProperty(globalThis, {json.dumps(name)}, {{ value: JSON.parse("
                     f"{json.dumps(encoded)}), writable: false, configurable: false }});")
    helpers = [name for name, reason in unavailable.items()
               if name in XSTATE_HELPERS and reason == _IMPORTED_FROM_XSTATE and name not in constants]
    for name, reason in unavailable.items():
        if not _IDENTIFIER.match(name) or name in constants or name in helpers:
            continue
        message = (f"'{name}' is defined outside the machine and statekit cannot carry it into the sandbox "
                   f"({reason}); only module-scope constants with JSON values are carried")
        lines.append(f"  Object.defineProperty(globalThis, {json.dumps(name)}, {{ get: function () {{ "
                     f"throw new ReferenceError({json.dumps(message)}); }}, configurable: false }});")
    lines.append("})();")
    if helpers:
        lines.append(f"__install({json.dumps(json.dumps(helpers))});")
    table: dict[str, dict[str, Any]] = {}
    for code, names in (closures or {}).items():
        kept = {name: value for name, value in names.items() if _IDENTIFIER.match(name)}
        try:
            json.dumps(kept, allow_nan=False, default=_encode)
        except (TypeError, ValueError):
            continue  # not JSON: the function reads the global of that name (unavailable says why)
        table[code] = kept
    if table:
        encoded = json.dumps(table, ensure_ascii=False, allow_nan=False, default=_encode)
        lines.append(f"__closures({json.dumps(encoded)});")
    kept = {name: kind for name, kind in (logic or {}).items()
            if _IDENTIFIER.match(name) and kind in _LOGIC_KINDS and name not in constants}
    if kept:  # module consts holding actor logic (`const child = fromPromise(...)`)
        lines.append(f"__installLogic({json.dumps(json.dumps(kept))});")
    return "\n".join(lines)


#: XState's own functions that inline code may call, which the sandbox has (see `HELPERS` in the
#: prelude): inline actor logic that the pure transition never runs, `assertEvent`, and the action
#: creators an `enqueueActions` body hands to `enqueue(...)`. Defined only where the module
#: imports them from 'xstate' (the extractor's `moduleScope.unavailable`).
XSTATE_HELPERS = frozenset({"fromPromise", "fromCallback", "fromObservable", "fromEventObservable", "fromTransition",
                            "createMachine", "assertEvent",
                            "assign", "cancel", "raise", "sendTo", "sendParent", "spawnChild", "stopChild", "emit"})
_IMPORTED_FROM_XSTATE = "imported from 'xstate'"
#: The actor logic a module const may hold for `spawn` (`const child = fromPromise(...)`).
_LOGIC_KINDS = frozenset({"fromPromise", "fromCallback", "fromObservable", "fromEventObservable", "fromTransition",
                          "custom"})
_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")


def _is_fatal(error: Exception) -> bool:
    """Whether the context is unusable after `error` (out of memory, time or stack)."""
    text = str(error)
    return ("interrupted" in text or "out of memory" in text or "call stack" in text
            or type(error).__name__ == "StackOverflow")


def _at(where: str) -> str:
    return f" in {where}" if where else ""


def _describe(error: Exception) -> str:
    """The first line of a QuickJS error, in plain words for the three limits."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    if "interrupted" in text:
        return f"it ran longer than the time limit ({text})"
    if "out of memory" in text:
        return f"it exceeded the memory limit ({text})"
    if "call stack" in text or type(error).__name__ == "StackOverflow":
        return f"it exceeded the stack limit ({text})"
    return text
