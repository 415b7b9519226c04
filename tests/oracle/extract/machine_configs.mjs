// What XState itself builds from each source file: every machine's `machine.config`, in the
// order the machines are created, normalised to statekit's JSON encoding.
//
//   node machine_configs.mjs FILE...   ->  {"FILE": {"machines": [config, ...], "implementations": [...]} | {"error": "..."}}
//       (implementations: each machine's, after any `.provide({...})` chained on it)
//   node machine_configs.mjs --factories < {"FILE": [name, ...]}
//       also calls, after loading FILE, each named binding of its top level that is a function
//       (a machine factory, as published packages write them), without arguments:
//       {"FILE": {"machines": [...], "factories": {name: [config, ...] | {"error": "..."}}}}
//
// Each file is transpiled with TypeScript's transpileModule and run as CommonJS with a `require`
// that gives the real xstate 5.33.3 (createMachine / setup wrapped to record each machine) and,
// for any other module, a stand-in whose every export is a named marker (`{"$ref": name}`).
// createActor is inert so that files which start their machines do not run them.
//
// The encoding mirrors src/statekit/extract/config.py from the runtime side: XState's built-in
// action objects carry their arguments as properties (`assign.assignment`, `raise.event`, ...),
// guard helpers carry theirs (`and.guards`, `stateIn.stateValue`), and inline functions are
// reported by their JavaScript name, as XState reports them.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import ts from 'typescript';
import { COMPILER_OPTIONS, normalizeCode } from './normalize.mjs';

const requireHere = createRequire(import.meta.url);
const xstate = requireHere('xstate');
const REF = Symbol('statekit.ref');
const DEFAULT_LOG = xstate.log().value.toString();

function marker(name) {
  const fn = function () { return marker(`${name}()`); };
  fn[REF] = name;
  return new Proxy(fn, {
    get(target, key) {
      if (key === REF) return name;
      if (typeof key === 'symbol' || key === 'prototype' || key === 'toString') return target[key];
      return marker(`${name}.${String(key)}`);
    },
  });
}

// A module other than xstate: each export is a marker named as the importing file names it
// (`ns.member` for `import * as ns`, the local name for a default import).
function stubModule(local) {
  return new Proxy({}, {
    get(_, key) {
      if (key === '__esModule') return true;
      if (typeof key === 'symbol') return undefined;
      if (key === 'default' && local.default) return marker(local.default);
      return marker(local.namespace ? `${local.namespace}.${String(key)}` : String(key));
    },
  });
}

function importNames(source) {
  const names = new Map();
  const file = ts.createSourceFile('x.tsx', source, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TSX);
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) || !statement.importClause) continue;
    const spec = statement.moduleSpecifier.text;
    const entry = names.get(spec) ?? {};
    const clause = statement.importClause;
    if (clause.name) entry.default = clause.name.text;
    if (clause.namedBindings && ts.isNamespaceImport(clause.namedBindings)) entry.namespace = clause.namedBindings.name.text;
    names.set(spec, entry);
  }
  return names;
}

// ESM -> a function body: imports become `require`s, `export` keywords go. Transpiling to ESNext
// (not CommonJS) keeps identifiers as written, so `fn.toString()` shows `friendMachine`, not
// `friendMachine_1.friendMachine`.
function toFunctionBody(js) {
  const file = ts.createSourceFile('x.js', js, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
  const edits = [];
  for (const statement of file.statements) {
    const start = statement.getStart(file);
    if (ts.isImportDeclaration(statement)) {
      const spec = JSON.stringify(statement.moduleSpecifier.text);
      const clause = statement.importClause;
      const parts = [];
      if (clause?.name) parts.push(`const ${clause.name.text} = require(${spec}).default;`);
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) parts.push(`const ${bindings.name.text} = require(${spec});`);
      if (bindings && ts.isNamedImports(bindings) && bindings.elements.length) {
        const names = bindings.elements.map((e) => (e.propertyName ? `${e.propertyName.text}: ${e.name.text}` : e.name.text));
        parts.push(`const { ${names.join(', ')} } = require(${spec});`);
      }
      if (!clause) parts.push(`require(${spec});`);
      edits.push([start, statement.end, parts.join(' ')]);
    } else if (ts.isExportDeclaration(statement)) {
      edits.push([start, statement.end, '']);
    } else if (ts.isExportAssignment(statement)) {
      edits.push([start, statement.expression.getStart(file), 'module.exports.default = ']);
    } else if (statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
      const modifiers = statement.modifiers.filter((m) => m.kind === ts.SyntaxKind.ExportKeyword || m.kind === ts.SyntaxKind.DefaultKeyword);
      for (const m of modifiers) edits.push([m.getStart(file), m.end, '']);
    }
  }
  // `import.meta` is a syntax error in a function body: a stand-in object (bundles read `.url`).
  const visit = (node) => {
    if (ts.isMetaProperty(node) && node.keywordToken === ts.SyntaxKind.ImportKeyword) {
      edits.push([node.getStart(file), node.end, '({ url: "file:///stand-in.js", env: {} })']);
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  edits.sort((a, b) => b[0] - a[0]);
  let out = js;
  for (const [from, to, text] of edits) out = out.slice(0, from) + text + out.slice(to);
  return out;
}

const AsyncFunction = (async () => {}).constructor;
const BROWSER_GLOBALS = ['window', 'document', 'localStorage', 'sessionStorage', 'navigator', 'location'];
const askFactories = process.argv[2] === '--factories';

// The machines of the last file run, loaded at the top level, each as `{machine}` where a later
// `.provide({...})` on it replaces `machine` (XState's provide makes a new machine).
let loadedEntries = [];

function tracked(entry, machine) {
  entry.machine = machine;
  const provide = machine.provide.bind(machine);
  machine.provide = (implementations) => tracked(entry, provide(implementations));
  return machine;
}

async function runFile(file, factoryNames = []) {
  let recorded = [];
  const entries = [];
  loadedEntries = entries;
  const record = (machine) => {
    recorded.push(machine.config);
    // Only machines made while the file loads (not by a factory called afterwards) are tracked.
    if (recorded === entries.owner) { const entry = {}; entries.push(entry); return tracked(entry, machine); }
    return machine;
  };
  entries.owner = recorded;
  // A setup() result whose createMachine records, and whose extend({...}) gives another such.
  const recordedSetup = (built) => Object.assign(Object.create(built), {
    createMachine: (config) => record(built.createMachine(config)),
    extend: (extended) => recordedSetup(built.extend(extended)),
  });
  const inertActor = () => new Proxy(function () {}, { get: (t, k) => (k === 'then' ? undefined : inertActor()), apply: () => inertActor() });
  const shim = {
    ...xstate,
    createMachine: (config, impl) => record(xstate.createMachine(config, impl)),
    setup: (arg) => recordedSetup(xstate.setup(arg)),
    createActor: inertActor,
    interpret: inertActor,
    toPromise: () => new Promise(() => {}),
  };
  const source = fs.readFileSync(file, 'utf8');
  const fileName = path.basename(file).replace(/\.(jsx?|mjs|cjs|vue)$/, '.tsx');
  const options = { ...COMPILER_OPTIONS, module: ts.ModuleKind.ESNext };
  const js = toFunctionBody(ts.transpileModule(source, { compilerOptions: options, fileName }).outputText);
  const imports = importNames(source);
  const module = { exports: {} };
  const fakeRequire = (name) => (name === 'xstate' ? shim : stubModule(imports.get(name) ?? {}));
  const quiet = { log() {}, error() {}, warn() {}, info() {} };
  // With factories asked for, the body ends by handing out a reader of its top-level bindings
  // (a direct eval sees them; an unknown or unreadable name reads as undefined).
  const reader = askFactories ? '\n;return (name) => { try { return eval(name); } catch { return undefined; } };' : '';
  // Browser globals that bundles touch on load are markers too (node has none of them).
  const browser = BROWSER_GLOBALS.map((name) => marker(name));
  const body = new AsyncFunction('require', 'module', 'exports', 'console', ...BROWSER_GLOBALS, js + reader);
  // Top-level code may wait forever (on an inert actor); the machines are recorded by then.
  const read = await Promise.race([body(fakeRequire, module, module.exports, quiet, ...browser), new Promise((resolve) => setTimeout(resolve, 200))]);
  if (!askFactories) return recorded;
  const loaded = recorded;
  const factories = {};
  for (const name of factoryNames) {
    const factory = typeof read === 'function' ? read(name) : undefined;
    if (typeof factory !== 'function' || isRef(factory)) continue;
    recorded = [];
    try {
      const made = factory();
      if (made && typeof made.then === 'function') made.catch(() => {});
      factories[name] = recorded;
    } catch (error) {
      factories[name] = { error: String(error) };
    }
  }
  return { loaded, factories };
}

// ---- encoding (mirrors src/statekit/extract/config.py) ----

// A machine's implementations (setup's, createMachine's second argument, provide's) as statekit's
// `implementation()` encodes them: `{code}` for a function, `{value}` for a built-in action or guard
// helper or data, `{$ref}` for another module's export; actor logic is compared by name only.
function implementationOf(v, kind) {
  if (isRef(v)) return { $ref: v[REF] };
  if (kind === 'actors') return { logic: true };
  if (typeof v === 'function') {
    if (typeof v.type === 'string' && v.type.startsWith('xstate.')) return { value: builtinAction(v) };
    if (kind === 'guards' && typeof v.check === 'function' && ['and', 'or', 'not', 'stateIn'].includes(v.name)) return { value: guard(v) };
    return { code: normalizeCode(v.toString()) };
  }
  return { value: plain(v) };
}

function implementations(machine) {
  const out = {};
  for (const kind of ['guards', 'actions', 'actors', 'delays']) {
    const group = machine.implementations[kind] ?? {};
    const names = Object.keys(group).filter((name) => group[name] !== undefined);
    if (names.length) out[kind] = Object.fromEntries(names.map((name) => [name, implementationOf(group[name], kind)]));
  }
  return out;
}

const isRef = (v) => typeof v === 'function' && v[REF] !== undefined;

function plain(v) {
  if (isRef(v)) return { $ref: v[REF] };
  if (typeof v === 'function') {
    if (typeof v.type === 'string' && v.type.startsWith('xstate.')) return builtinAction(v);
    if (typeof v.check === 'function' && ['and', 'or', 'not', 'stateIn'].includes(v.name)) return guard(v);
    return { $js: normalizeCode(v.toString()) };
  }
  if (Array.isArray(v)) return v.map((x) => (x === undefined ? null : plain(x)));
  if (v && typeof v === 'object') {
    const out = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = plain(x);
    return out;
  }
  if (typeof v === 'number' && !Number.isFinite(v)) return null;
  return v;
}

function put(out, key, value) { if (value !== undefined) out[key] = plain(value); }

function builtinAction(fn) {
  const type = fn.type;
  const out = { type };
  switch (type) {
    case 'xstate.assign': out.assignment = plain(fn.assignment); return out;
    case 'xstate.raise': put(out, 'event', fn.event); put(out, 'id', fn.id); put(out, 'delay', fn.delay); return out;
    case 'xstate.sendTo':
      if (fn.to === '#_parent') {
        const parent = { type: 'xstate.sendParent' };
        put(parent, 'event', fn.event); put(parent, 'id', fn.id); put(parent, 'delay', fn.delay);
        return parent;
      }
      put(out, 'to', fn.to); put(out, 'event', fn.event); put(out, 'id', fn.id); put(out, 'delay', fn.delay); return out;
    case 'xstate.emit': put(out, 'event', fn.event); return out;
    case 'xstate.log':
      if (!(typeof fn.value === 'function' && fn.value.toString() === DEFAULT_LOG)) put(out, 'value', fn.value);
      put(out, 'label', fn.label); return out;
    case 'xstate.cancel': put(out, 'sendId', fn.sendId); return out;
    case 'xstate.spawnChild':
      put(out, 'src', fn.src); put(out, 'id', fn.id); put(out, 'systemId', fn.systemId); put(out, 'input', fn.input);
      if (fn.syncSnapshot) put(out, 'syncSnapshot', fn.syncSnapshot);
      return out;
    case 'xstate.stopChild': put(out, 'actorRef', fn.actorRef); return out;
    case 'xstate.enqueueActions': out.code = normalizeCode(fn.collect.toString()); return out;
    default: return { $js: normalizeCode(fn.toString()) };
  }
}

// An action or guard from another module is unknown statically: statekit keeps it as the named
// implementation `{type: name}` (with a warning), and so does this side.
function action(v) {
  if (isRef(v)) return { type: v[REF] };
  if (typeof v === 'function') {
    if (typeof v.type === 'string' && v.type.startsWith('xstate.')) return builtinAction(v);
    return { type: v.name || '(anonymous)', code: normalizeCode(v.toString()) };
  }
  return plain(v);
}
const actions = (v) => (Array.isArray(v) ? v.map(action) : action(v));

function guard(v) {
  if (isRef(v)) return { type: v[REF] };
  if (typeof v === 'function') {
    if (typeof v.check === 'function') {
      if (v.name === 'not') return { type: 'xstate.not', guard: guard(v.guards[0]) };
      if (v.name === 'stateIn') return { type: 'xstate.stateIn', state: plain(v.stateValue) };
      if (v.name === 'and' || v.name === 'or') return { type: `xstate.${v.name}`, guards: v.guards.map(guard) };
    }
    return { type: v.name || '(anonymous)', code: normalizeCode(v.toString()) };
  }
  return plain(v);
}

function transition(v) {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return plain(v);
  const out = {};
  for (const [k, x] of Object.entries(v)) {
    if (x === undefined) continue;
    out[k] = k === 'guard' ? guard(x) : k === 'actions' ? actions(x) : plain(x);
  }
  return out;
}
const transitions = (v) => (Array.isArray(v) ? v.map(transition) : transition(v));

function invoke(v, nodeId, index) {
  if (!v || typeof v !== 'object') return plain(v);
  const out = {};
  for (const [k, x] of Object.entries(v)) {
    if (x === undefined) continue;
    if (k === 'src' && typeof x !== 'string') out[k] = `xstate.invoke.${index}.${nodeId}`;
    else if (['onDone', 'onError', 'onSnapshot'].includes(k)) out[k] = transitions(x);
    else out[k] = plain(x);
  }
  return out;
}

function state(v, machineId, statePath) {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return plain(v);
  const nodeId = typeof v.id === 'string' ? v.id : [machineId, ...statePath].join('.');
  const out = {};
  for (const [k, x] of Object.entries(v)) {
    if (x === undefined) continue;
    if (k === 'states' && x && typeof x === 'object') {
      out[k] = {};
      for (const [child, cfg] of Object.entries(x)) if (cfg !== undefined) out[k][child] = state(cfg, machineId, [...statePath, child]);
    } else if ((k === 'on' || k === 'after') && x && typeof x === 'object' && !Array.isArray(x)) {
      out[k] = {};
      for (const [ev, t] of Object.entries(x)) if (t !== undefined) out[k][ev] = transitions(t);
    } else if (k === 'always' || k === 'onDone') out[k] = transitions(x);
    else if (k === 'entry' || k === 'exit') out[k] = actions(x);
    else if (k === 'invoke') out[k] = Array.isArray(x) ? x.map((i, n) => invoke(i, nodeId, n)) : invoke(x, nodeId, 0);
    else out[k] = plain(x);
  }
  return out;
}

function machine(config) {
  const id = typeof config.id === 'string' ? config.id : '(machine)';
  return state(config, id, []);
}

const results = {};
const requests = askFactories ? JSON.parse(fs.readFileSync(0, 'utf8')) : Object.fromEntries(process.argv.slice(2).map((f) => [f, []]));
for (const [file, factoryNames] of Object.entries(requests)) {
  try {
    if (askFactories) {
      const { loaded, factories } = await runFile(file, factoryNames);
      const built = Object.fromEntries(Object.entries(factories).map(([name, made]) => [name, Array.isArray(made) ? made.map(machine) : made]));
      results[file] = { machines: loaded.map(machine), factories: built };
    } else {
      const configs = (await runFile(file)).map(machine);
      results[file] = { machines: configs, implementations: loadedEntries.map((entry) => implementations(entry.machine)) };
    }
  } catch (error) {
    results[file] = { error: String(error && error.stack ? error.stack.split('\n').slice(0, 3).join(' | ') : error) };
  }
}
// Exit once the output is written: to a pipe, process.exit() right after write() cuts it at 64 KiB.
// (Exiting at all ends timers that files started.)
process.stdout.write(JSON.stringify(results), () => process.exit(0));
