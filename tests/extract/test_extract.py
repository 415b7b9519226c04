"""Static extraction: discovery, encoding, resolution, errors and limits (no node needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

import statekit.tools as tools
from statekit.errors import ToolError
from statekit.extract import MAX_SOURCE_BYTES, extract_machines
from statekit.extract.values import MAX_DEPTH


def only_machine(code: str, filename: str | None = "m.ts") -> dict:
    result = extract_machines(code, filename)
    assert result["errors"] == [], result["errors"]
    assert len(result["machines"]) == 1
    return dict(result["machines"][0])


def test_every_call_form_is_found_with_its_name_and_position() -> None:
    code = """import * as xs from 'xstate';
import { createMachine, setup } from 'xstate';
export const a = createMachine({ id: 'a' });
const b = setup({}).createMachine({ id: 'b' } satisfies any);
const c = xs.createMachine(({ id: 'c' }) as any)!;
export default createMachine({ id: 'd' });
const holder = { e: createMachine({ id: 'e' }) };
function makeF() { return createMachine({ id: 'f' }); }
"""
    machines = extract_machines(code, "x.ts")["machines"]
    assert [(m["name"], m["config"]["id"]) for m in machines] == [
        ("a", "a"), ("b", "b"), ("c", "c"), ("default", "d"), ("e", "e"), ("makeF", "f"),
    ]
    assert (machines[0]["line"], machines[0]["column"]) == (3, 18)
    assert machines[2]["line"] == 5


def test_a_local_function_called_createMachine_is_not_xstate() -> None:
    code = "function createMachine(x) { return x; }\nconst m = createMachine({ id: 'no' });"
    assert extract_machines(code)["machines"] == []


def test_inline_functions_are_named_as_javascript_names_them() -> None:
    machine = only_machine("""
const named = () => 1;
createMachine({
  entry: () => 1,
  exit: [() => 2, named, function own() {}],
  on: { E: { guard: ({ context }) => context.ok, actions: ({ event }) => event } },
});""")
    config = machine["config"]
    assert config["entry"] == {"type": "entry", "code": "() => 1"}
    assert config["exit"] == [
        {"type": "(anonymous)", "code": "() => 2"},
        {"type": "named", "code": "() => 1"},
        {"type": "own", "code": "function own() {}"},
    ]
    assert config["on"]["E"]["guard"] == {"type": "guard", "code": "({ context }) => context.ok"}
    assert config["on"]["E"]["actions"] == {"type": "actions", "code": "({ event }) => event"}


def test_builtins_become_statekit_objects_with_functions_as_js() -> None:
    machine = only_machine("""
import { createMachine, assign, raise, sendTo, log, and, not, stateIn, enqueueActions as enq } from 'xstate';
createMachine({
  entry: [
    assign({ n: ({ context }) => context.n + 1, fixed: 2 }),
    raise(({ event }) => ({ type: 'X' }), { delay: 10, id: 'r' }),
    sendTo('child', { type: 'PING' }),
    log('hi', 'label'),
    enq(({ enqueue }) => enqueue('a')),
  ],
  on: { E: { guard: and([not('bad'), stateIn('#m.a')]) } },
});""")
    entry = machine["config"]["entry"]
    assert entry[0] == {"type": "xstate.assign", "assignment": {"n": {"$js": "({ context }) => context.n + 1"}, "fixed": 2}}
    assert entry[1] == {"type": "xstate.raise", "event": {"$js": "({ event }) => ({ type: 'X' })"}, "id": "r", "delay": 10}
    assert entry[2] == {"type": "xstate.sendTo", "to": "child", "event": {"type": "PING"}}
    assert entry[3] == {"type": "xstate.log", "value": "hi", "label": "label"}
    assert entry[4] == {"type": "xstate.enqueueActions", "code": "({ enqueue }) => enqueue('a')"}
    assert machine["config"]["on"]["E"]["guard"] == {
        "type": "xstate.and",
        "guards": [{"type": "xstate.not", "guard": "bad"}, {"type": "xstate.stateIn", "state": "#m.a"}],
    }


def test_a_same_named_local_function_is_not_the_builtin() -> None:
    result = extract_machines("""
import { createMachine } from 'xstate';
import { assign } from './my-helpers';
createMachine({ entry: assign({ a: 1 }) });""")
    # Not XState's assign: what the call returns is unknown, kept as a named action and said so.
    assert result["machines"][0]["config"]["entry"] == {"type": "assign()"}
    assert [(e["code"], e["line"], e["column"]) for e in result["errors"]] == [("unresolved_reference", 4, 24)]


def test_constants_spreads_and_arithmetic_resolve_statically() -> None:
    machine = only_machine("""
const SECOND = 1000;
const base = { initial: 'a', context: { limit: 3 * SECOND } };
const KEY = 'dyn';
createMachine({ ...base, states: { a: { after: { [2 * SECOND]: 'b' } }, b: {}, [`${KEY}1`]: {} } });""")
    config = machine["config"]
    assert config["initial"] == "a"
    assert config["context"] == {"limit": 3000}
    assert config["states"]["a"]["after"] == {"2000": "b"}
    assert "dyn1" in config["states"]


def test_imports_and_parameters_are_references_and_reported() -> None:
    result = extract_machines("""
import { createMachine } from 'xstate';
import { track } from './analytics';
import extra from './extra';
function make(initial) {
  return createMachine({ initial, entry: track, states: { ...extra } });
}""", "m.ts")
    config = result["machines"][0]["config"]
    assert config["initial"] == {"$ref": "initial"}
    assert config["entry"] == {"type": "track"}  # an action: a named reference every tool accepts
    assert [(error["code"], error["line"]) for error in result["errors"]] == [
        ("unresolved_spread", 6), ("unresolved_reference", 6)]


def test_setup_implementations_are_kept_as_code_values_or_references() -> None:
    machine = only_machine("""
import { setup, assign, fromPromise } from 'xstate';
import { loadUser } from './api';
const s = setup({
  guards: { ok: ({ context }) => context.ok },
  actions: { inc: assign({ n: ({ context }) => context.n + 1 }), log: () => {} },
  actors: { loadUser, inline: fromPromise(async () => 1) },
  delays: { LONG: 5 * 60 * 1000 },
});
export const m = s.createMachine({ id: 'm', invoke: { src: fromPromise(async () => 2) } });""")
    impls = machine["implementations"]
    assert impls["guards"] == {"ok": {"code": "({ context }) => context.ok"}}
    assert impls["actions"]["inc"]["value"] == {"type": "xstate.assign", "assignment": {"n": {"$js": "({ context }) => context.n + 1"}}}
    assert impls["actions"]["log"] == {"code": "() => {}"}
    assert impls["actors"]["loadUser"] == {"$ref": "loadUser"}
    assert impls["actors"]["xstate.invoke.0.m"] == {"code": "fromPromise(async () => 2)"}
    assert impls["delays"] == {"LONG": {"value": 300000}}
    assert machine["config"]["invoke"]["src"] == "xstate.invoke.0.m"


def test_version_is_inferred_structurally_and_can_be_overridden() -> None:
    v5 = "createMachine({ on: { E: { target: 'a' } }, states: { a: {} } })"
    v6 = "createMachine({ on: { E: ({ context }, enq) => ({ target: 'a' }) }, states: { a: {} } })"
    assert extract_machines(v5)["machines"][0]["xstateVersion"] == 5
    assert extract_machines(v6)["machines"][0]["xstateVersion"] == 6
    assert extract_machines(v6, None, 5)["machines"][0]["xstateVersion"] == 5


def test_syntax_errors_are_located_and_other_machines_still_extracted() -> None:
    code = """import { createMachine } from 'xstate';
export const good = createMachine({ id: 'good', states: { a: {} } });
const broken = {
  a: 1 +,
};
"""
    result = extract_machines(code, "m.ts")
    assert [m["name"] for m in result["machines"]] == ["good"]
    errors = [e for e in result["errors"] if e["code"] == "syntax_error"]
    assert errors and errors[0]["line"] == 4


def test_deep_nesting_is_reported_not_crashed() -> None:
    depth = MAX_DEPTH * 20
    code = "createMachine({ context: " + "[" * depth + "]" * depth + ", states: " + "{ a: { states: " * depth + "{}" + " } }" * depth + " })"
    result = extract_machines(code)
    assert len(result["machines"]) == 1
    assert any(error["code"] == "too_deep" for error in result["errors"])


def test_oversized_source_is_refused_with_an_error() -> None:
    result = extract_machines("x" * (MAX_SOURCE_BYTES + 1))
    assert result["machines"] == [] and result["errors"][0]["code"] == "too_large"


def test_the_source_is_never_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    code = f"""require('fs').writeFileSync({str(marker)!r}, 'x');
const m = createMachine({{ id: 'x', entry: () => require('fs').writeFileSync({str(marker)!r}, 'y') }});"""
    assert extract_machines(code, "m.js")["machines"]
    assert not marker.exists()


def test_tool_returns_machines_and_errors() -> None:
    result = tools.call("extract_machines_from_code", {
        "code": "import { createMachine } from 'xstate';\nexport const player = createMachine({ id: 'player', initial: 'paused', "
                "states: { paused: { on: { PLAY: 'playing' } }, playing: {} } });",
        "filename": "player.ts",
    })
    assert result["errors"] == []
    assert result["machines"][0]["name"] == "player"
    assert result["machines"][0]["config"]["states"]["paused"] == {"on": {"PLAY": "playing"}}
    forced = tools.call("extract_machines_from_code", {"code": "createMachine({})", "xstateVersion": "6"})
    assert forced["machines"][0]["xstateVersion"] == 6


@pytest.mark.parametrize("arguments", [{}, {"code": 3}, {"code": "", "xstateVersion": 4}, {"code": "", "filename": 1}])
def test_tool_rejects_bad_arguments(arguments: dict) -> None:
    with pytest.raises(ToolError) as caught:
        tools.call("extract_machines_from_code", arguments)
    assert caught.value.code == "invalid_input"


def test_an_unclosed_machine_is_reported_where_it_opens() -> None:
    code = "import { createMachine } from 'xstate';\nexport const m = createMachine({\n  id: 'x',\n  states: { a: {} }\n"
    errors = extract_machines(code, "m.ts")["errors"]
    assert [(e["code"], e["line"]) for e in errors] == [("syntax_error", 2)]
    assert "not closed" in errors[0]["message"]


def test_v6_implementations_in_the_config_are_reported() -> None:
    machine = only_machine("""
createMachine({
  actions: { track: () => {} },
  entry: (_, enq) => enq(() => {}),
  on: { GO: ({ context }) => ({ target: 'b' }) },
  states: { b: {} },
});""")
    assert machine["xstateVersion"] == 6
    assert machine["implementations"]["actions"] == {"track": {"code": "() => {}"}}


def test_vue_single_file_components_are_read_from_their_script_block() -> None:
    vue = """<template>
  <button @click="send({ type: 'TOGGLE' })">{{ state.value }}</button>
</template>

<script setup lang="ts">
import { createMachine } from 'xstate';
const toggle = createMachine({ id: 'vue', initial: 'a', states: { a: {} } });
</script>
"""
    result = extract_machines(vue, "Toggle.vue")
    assert result["errors"] == []
    assert [(m["name"], m["line"], m["column"]) for m in result["machines"]] == [("toggle", 7, 16)]


def test_setup_helpers_are_the_builtins_they_wrap() -> None:
    machine = only_machine("""
import { setup } from 'xstate';
const base = setup({ actions: { ping: () => {} } });
const s = base.extend({ guards: { ok: () => true } });
const inc = s.assign({ n: ({ context }) => context.n + 1 });
const custom = base.createAction(({ context }) => context.n);
const wrapped = s.createAction(s.raise({ type: 'WRAPPED' }));
const shared = s.createStateConfig({ on: { GO: { actions: [inc, custom] } } });
const notSetup = { assign: (x) => x };
export const m = s.createMachine({
  context: { n: 0 },
  entry: [wrapped, s.stopChild('c'), s.cancel('t'), setup({}).emit({ type: 'E' })],
  exit: notSetup.assign({ n: 1 }),
  initial: 'a',
  states: { a: shared },
});""")
    config = machine["config"]
    assert config["entry"] == [
        {"type": "xstate.raise", "event": {"type": "WRAPPED"}},
        {"type": "xstate.stopChild", "actorRef": "c"},
        {"type": "xstate.cancel", "sendId": "t"},
        {"type": "xstate.emit", "event": {"type": "E"}},
    ]
    assert config["states"]["a"]["on"]["GO"]["actions"] == [
        {"type": "xstate.assign", "assignment": {"n": {"$js": "({ context }) => context.n + 1"}}},
        {"type": "(anonymous)", "code": "({ context }) => context.n"},
    ]
    assert "xstate." not in str(config["exit"])  # an object that is not a setup() result is not one
    assert set(machine["implementations"]) == {"actions", "guards"}


def test_user_factories_are_applied_to_their_constant_arguments() -> None:
    result = extract_machines("""
import { createMachine, assign, raise } from 'xstate';
const STEP = 3;
function incrementBy(amount) { return assign({ n: ({ context }) => context.n + amount }); }
const decrementBy = (amount = 1) => assign({ n: ({ context }) => context.n - amount });
const above = (min: number) => ({ type: 'above', params: { min } });
const named = { ping(kind) { const event = { type: 'PING', kind }; return raise(event); } };
const branchy = (x) => { if (x) { return 'a'; } return 'b'; };
export const m = createMachine({
  entry: [incrementBy(STEP), named.ping('k'), branchy(1)],
  exit: decrementBy(),
  on: { GO: { guard: above(STEP * 2), actions: incrementBy(STEP) } },
});""", "m.ts")
    machine = result["machines"][0]
    config, scope = machine["config"], machine["implementations"]["moduleScope"]
    assert config["entry"][0] == {"type": "xstate.assign", "assignment": {"n": {"$js": "({ context }) => context.n + amount"}}}
    assert config["entry"][1] == {"type": "xstate.raise", "event": {"type": "PING", "kind": "k"}}
    assert config["entry"][2] == {"type": "branchy()"}  # an `if` in the body: not followed, said so
    assert [(e["code"], e["line"]) for e in result["errors"]] == [("unresolved_reference", 10)]
    assert config["on"]["GO"]["guard"] == {"type": "above", "params": {"min": 6}}
    # Each made function closes over its own call's arguments.
    assert scope == {"closures": {
        "({ context }) => context.n + amount": {"amount": 3},
        "({ context }) => context.n - amount": {"amount": 1},
    }}


def test_one_function_source_made_with_different_arguments_is_not_guessed() -> None:
    machine = only_machine("""
const addN = (n) => assign({ total: ({ context }) => context.total + n });
const other = (n) => ({ context }) => context.total > n;
createMachine({ entry: [addN(1), addN(5)], on: { GO: { guard: other(2) } } });""")
    scope = machine["implementations"]["moduleScope"]
    assert scope["closures"] == {"({ context }) => context.total > n": {"n": 2}}
    assert "cannot tell them apart" in scope["unavailable"]["n"]


def test_a_factory_argument_read_by_one_closure_is_carried() -> None:
    machine = only_machine("""
const LIMIT = 4;
const atMost = (limit = LIMIT) => ({ context }) => context.n <= limit;
createMachine({ on: { GO: { guard: atMost() } } });""")
    assert machine["config"]["on"]["GO"]["guard"] == {"type": "(anonymous)", "code": "({ context }) => context.n <= limit"}
    assert machine["implementations"]["moduleScope"] == {"closures": {"({ context }) => context.n <= limit": {"limit": 4}}}


def test_void_is_undefined_and_an_input_factory_gives_its_inner_function() -> None:
    machine = only_machine("""
const KINDS = ['a', 'b'];
const inputFrom = (config) => ({ context }) => ({ kinds: config.kinds, id: context.id });
createMachine({
  exit: assign({ ghost: void 0, kept: 1 }),
  invoke: { src: 'listen', input: inputFrom({ kinds: KINDS }) },
});""")
    assert machine["config"]["exit"] == {"type": "xstate.assign", "assignment": {"kept": 1}}
    assert machine["config"]["invoke"]["input"] == {"$js": "({ context }) => ({ kinds: config.kinds, id: context.id })"}
    assert machine["implementations"]["moduleScope"] == {
        "closures": {"({ context }) => ({ kinds: config.kinds, id: context.id })": {"config": {"kinds": ["a", "b"]}}}}


def test_a_const_holding_xstate_actor_logic_is_carried_as_logic_and_other_logic_is_not() -> None:
    machine = only_machine("""
import { createMachine, assign, fromPromise } from 'xstate';
import { fromPromise as lookalike } from './mine';
const fetcher = fromPromise(() => Promise.resolve(1));
const other = lookalike(() => 1);
const own = { transition: (state) => state, getInitialSnapshot() { return { status: 'active' }; } };
const half = { transition: (state) => state };
createMachine({ context: {}, entry: assign({ a: ({ spawn }) => spawn(fetcher), b: ({ spawn }) => spawn(other),
  c: ({ spawn }) => spawn(own), d: ({ spawn }) => spawn(half) }) });""")
    scope = machine["implementations"]["moduleScope"]
    assert scope["logic"] == {"fetcher": "fromPromise", "own": "custom"}  # the sandbox keeps them, never runs them
    assert "half" in scope["unavailable"]
    assert "other" in scope["unavailable"] and "other" not in scope["logic"]


def test_typescript_types_are_taken_out_of_kept_functions() -> None:
    machine = only_machine("""
type Ctx = { n: number };
createMachine({
  entry: function log(this: unknown, { context }: { context: Ctx }): void { console.log(context.n as number); },
  on: { GO: { guard: ({ context }: { context: Ctx }, params?: { min: number }): boolean => context.n > params!.min } },
});""")
    config = machine["config"]
    assert config["entry"]["code"] == "function log( { context }) { console.log(context.n); }"
    assert config["on"]["GO"]["guard"]["code"] == "({ context }, params) => context.n > params.min"


def test_validate_counts_the_sources_own_implementations_as_supplied() -> None:
    source = """import { setup } from 'xstate';
export const m = setup({ guards: { ready: () => true }, actions: { go: () => {} } }).createMachine({
  initial: 'a',
  states: { a: { on: { GO: { guard: 'ready', actions: ['go', 'missing'], target: 'b' } } }, b: {} },
}).provide({ delays: { soon: 10 } });"""
    issues = tools.call("validate_machine", {"machine": source})["issues"]
    assert [(i["code"], i["message"]) for i in issues] == [
        ("action_not_implemented", "no implementation supplied for action 'missing'")]


def test_commonjs_requires_and_sequence_callees_are_xstate_imports() -> None:
    result = extract_machines("""
const xstate_1 = require("xstate");
const { not: negate } = require("xstate");
const mine_1 = require("./mine");
exports.m = (0, xstate_1.createMachine)({
  entry: [(0, xstate_1.raise)({ type: 'X' }), (0, mine_1.assign)({ a: 1 })],
  on: { X: { guard: negate('g') } },
});""", "m.js")
    config = result["machines"][0]["config"]
    assert result["machines"][0]["name"] == "exports.m"
    assert config["entry"] == [{"type": "xstate.raise", "event": {"type": "X"}}, {"type": "mine_1.assign()"}]
    assert config["on"]["X"]["guard"] == {"type": "xstate.not", "guard": "g"}
    assert [e["code"] for e in result["errors"]] == ["unresolved_reference"]


def test_a_transition_that_is_an_import_is_refused_not_read_as_targetless() -> None:
    source = """import { createMachine } from 'xstate';
import { NEXT } from './targets';
export const m = createMachine({ initial: 'a', states: { a: { on: { GO: NEXT } }, b: {} } });"""
    with pytest.raises(ToolError) as raised:
        tools.call("simulate_machine", {"machine": source, "events": ["GO"]})
    assert "the transition is `NEXT`" in raised.value.message


def test_pure_math_and_array_fill_in_initial_data_are_computed() -> None:
    machine = only_machine("""
const grid = { width: 25 };
createMachine({ context: {
  x: Math.floor((grid.width * 3) / 4), r: Math.round(-2.5), top: Math.max(1, 4, 2),
  board: Array(3).fill(null), zeros: new Array(2).fill(0), seed: Math.random(), shared: Array(2).fill({}),
} });""")
    assert machine["config"]["context"] == {
        "x": 18, "r": -2, "top": 4, "board": [None, None, None], "zeros": [0, 0],
        "seed": {"$expr": "Math.random()"}, "shared": {"$expr": "Array(2).fill({})"},
    }


def test_parentheses_written_only_for_a_type_assertion_go_as_typescript_drops_them() -> None:
    machine = only_machine("""
createMachine({ on: { E: { guard: ({ event }) => (event.error as Error).message === 'x' && (event.n!) > (event.m as number) + 1 } } });""")
    assert machine["config"]["on"]["E"]["guard"]["code"] == (
        "({ event }) => event.error.message === 'x' && (event.n) > event.m + 1")
