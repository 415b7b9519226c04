"""The sandbox's path for guards (`JsSandbox.guard_passes`): a function called by number in the
QuickJS context, answering by JavaScript's truthiness (XState's `if (guardPassed)`).

A guard whose source reads its context and event only as `context.name` / `event.name`
(`_guard_reads`) is given fresh objects holding just those entries, each value crossing as an
argument; any other guard gets the whole `{context, event}` as JSON. Either way it must answer
exactly as the general path (`evaluate`) does on the whole context, failures included: every
case below is run both ways, and the tricky sources are the ones a projection that missed a use
of the object would answer differently."""

from __future__ import annotations

import threading
from typing import Any

import pytest

import statekit
from statekit.engine.api import initial_transition, transition
from statekit.engine.evaluation import UNDEFINED
from statekit.engine.inline import implementations_from_code
from statekit.engine.sandbox import JsSandbox, _guard_reads
from statekit.errors import EngineError

LOOP = "() => { while (true) {} }"
FULL = {"n": 3, "name": "été 😀", "items": [1, 2], "flag": False, "none": None, "u": UNDEFINED,
        "big": 2**40, "neg": -(2**31), "edge": 2**31, "half": 0.5, "minus_zero": -0.0,
        "ref": {"xstate$$type": 1, "id": "child"}, "nested": {"u": UNDEFINED, "list": [UNDEFINED, None]}}
EVENT = {"type": "GO", "by": 2, "x": UNDEFINED, "payload": {"k": "v"}}
CASES: list[tuple[str, Any, Any, Any]] = [
    ("({ context }, params) => context.items < params.max", {"items": 1}, {"type": "A"}, {"max": 2}),
    ("({ context }, params) => context.items < params.max", {"items": 3}, {"type": "A"}, {"max": 2}),
    ("({ event }) => event.x === undefined", {}, {"type": "A", "x": UNDEFINED}, None),
    ("({ event }) => event.x === null", {}, {"type": "A", "x": None}, None),
    ("({ context }) => context.x === undefined && 'x' in context", {"x": UNDEFINED}, {"type": "A"}, None),
    ("(args, params) => params === undefined", {}, {"type": "A"}, None),
    ("(args, params) => params === undefined", {}, {"type": "A"}, UNDEFINED),
    ("(args, params) => params.x === undefined", {}, {"type": "A"}, {"x": UNDEFINED}),
    ("({ context }) => context.ref.id", {"ref": {"xstate$$type": 1, "id": "child"}}, {"type": "A"}, None),
    ("({ context }) => context.name + '!'", {"name": "été 😀"}, {"type": "A"}, None),
    ("() => undefined", {}, {"type": "A"}, None),
    ("() => ({ a: undefined, b: [undefined] })", {}, {"type": "A"}, None),
    # Values of every kind, read by a guard that is given only what it reads:
    ("({ context }) => context.n === 3 && context.flag === false && context.none === null", FULL, EVENT, None),
    ("({ context }) => context.u === undefined", FULL, EVENT, None),
    ("({ context }) => context.missing === undefined", FULL, EVENT, None),
    ("({ context }) => context.big === 1099511627776 && context.neg === -2147483648", FULL, EVENT, None),
    ("({ context }) => context.edge === 2147483648 && context.half === 0.5", FULL, EVENT, None),
    ("({ context }) => 1 / context.minus_zero === -Infinity", FULL, EVENT, None),
    ("({ context }) => context.ref.id === 'child' && context.ref.send !== undefined", FULL, EVENT, None),
    ("({ context }) => context.nested.u === undefined && context.nested.list[0] === undefined", FULL, EVENT, None),
    ("({ context }) => context.nested.list[1] === null && context.items.length === 2", FULL, EVENT, None),
    ("({ context, event }) => context.n + event.by === 5 && event.x === undefined", FULL, EVENT, None),
    ("({ event, context }) => event?.payload?.k === 'v' && context.name.length === 4", FULL, EVENT, None),
    ("({ context }) => context.toString === Object.prototype.toString", FULL, EVENT, None),
    ("({ context }) => context.hasOwnProperty", FULL, EVENT, None),
    ("({ context }) => { context.n = 99; return context.n === 99; }", FULL, EVENT, None),
    ("({ context }) => context.items.some((item) => item > 1)", FULL, EVENT, None),
    ("({ context }, p) => Math.max(context.n, p.floor) > 3", FULL, EVENT, {"floor": 4}),
    # A key that is a param's value (`event[params.field]`), in a body that leaves the params as they came:
    ("({ context, event }, p) => event[p.field] + context[p.other] === 5", FULL, EVENT, {"field": "by", "other": "n"}),
    ("({ event }, p) => event?.[p.field] === undefined", FULL, EVENT, {"field": "x"}),
    ("({ event }, p) => event[p.field] === undefined", FULL, EVENT, {"field": "absent"}),
    ("({ event }, p) => event[p.field] === undefined", FULL, EVENT, {"field": 1}),
    ("({ event }, p) => event[p.field] === undefined", FULL, EVENT, {}),
    ("({ event }, p) => event[p.field] === 'GO'", FULL, {"type": "GO", "__proto__": "GO"}, {"field": "__proto__"}),
    ("({ event }, p) => event[p.field].k === 'v' && event.type === 'GO'", FULL, EVENT, {"field": "payload"}),
    # ... and where the params could change first, or a key is computed otherwise (never a projection):
    ("({ event }, p) => { p.field = 'type'; return event[p.field] === 'GO'; }", FULL, EVENT, {"field": "by"}),
    ("({ event }, p) => Object.assign(p, { field: 'type' }) && event[p.field] === 'GO'", FULL, EVENT,
     {"field": "by"}),
    ("({ event }, p) => event[p.field + ''] === 2", FULL, EVENT, {"field": "by"}),
    # Sources that use the objects whole (so they must get all of them, never a projection):
    ("({ context }) => context.hasOwnProperty('name')", FULL, EVENT, None),
    ("({ context }) => (context.hasOwnProperty)('name')", FULL, EVENT, None),
    ("({ context }) => context.valueOf?.() === context", FULL, EVENT, None),
    ("({ context }) => Object.keys(context).length", FULL, EVENT, None),
    ("({ context }) => 'name' in context", FULL, EVENT, None),
    ("({ context }) => [...Object.keys({...context})].length === 13", FULL, EVENT, None),
    ("({ context }) => context['name'] !== undefined", FULL, EVENT, None),
    ("({ context }) => { const c = context; return c.name !== undefined; }", FULL, EVENT, None),
    ("({ context }) => { const { name } = context; return name !== undefined; }", FULL, EVENT, None),
    ("({ context }) => eval('context.name') !== undefined", FULL, EVENT, None),
    ("({ context }) => \\u0063ontext.name !== undefined", FULL, EVENT, None),
    ("({ context }) => JSON.stringify(context).length > 10", FULL, EVENT, None),
    ("({ context }) => context.hasOwnProperty /* a comment */ ('name')", FULL, EVENT, None),
    ("({ context }) => context.hasOwnProperty // a comment\n('name')", FULL, EVENT, None),
    ("({ context }) => context.hasOwnProperty <!-- a comment\n('name')", FULL, EVENT, None),
    ("({ event }) => event.type === 'GO' && Object.keys(event).length === 4", FULL, EVENT, None),
    # JavaScript's truthiness, not Python's (XState passes a guard that returns [] or {}):
    ("() => []", {}, {"type": "A"}, None),
    ("() => ({})", {}, {"type": "A"}, None),
    ("({ context }) => context.items", {"items": []}, {"type": "A"}, None),
    ("() => () => 0", {}, {"type": "A"}, None),
    ("() => NaN", {}, {"type": "A"}, None),
    ("() => ''", {}, {"type": "A"}, None),
    ("() => '0'", {}, {"type": "A"}, None),
]


def _warm(sandbox: JsSandbox) -> None:
    # The direct path starts once the context exists on this thread (the first call makes it).
    sandbox.evaluate("() => 0", {}, None)


def _truthiness(sandbox: JsSandbox, code: str, context: Any, event: Any, params: Any) -> Any:
    """What the general path gives: the guard run on the whole `{context, event}` as JSON, and
    JavaScript's `!!` of its result."""
    return sandbox.evaluate(f"(args, params) => !!({code})(args, params)", {"context": context, "event": event},
                            params, where="guard 'g'")


@pytest.mark.parametrize(("code", "context", "event", "params"), CASES)
def test_a_guard_answers_as_the_general_path_on_the_whole_context(code: str, context: Any, event: Any,
                                                                   params: Any) -> None:
    direct, general = JsSandbox(), JsSandbox()
    _warm(direct)
    expected = _truthiness(general, code, context, event, params)
    assert direct.guard_passes(code, context, event, params, "guard 'g'") is expected
    assert direct.guard_passes(code, context, event, params, "guard 'g'") is expected  # numbered now
    cold = JsSandbox()  # the first call of a sandbox takes the general placement first
    assert cold.guard_passes(code, context, event, params, "guard 'g'") is expected


def test_the_guards_given_a_projection_are_the_ones_that_only_read_entries() -> None:
    assert _guard_reads("({ context, event }) => event.amount >= context.total - context.paid") == (
        (1, "amount"), (0, "total"), (0, "paid"))
    assert _guard_reads("({ context }, params) => context.items < params.max") == ((0, "items"),)
    assert _guard_reads("({ event }, params) => params.methods.includes(event.method)") == ((1, "method"),)
    assert _guard_reads("({ context }) => event.x > context.y") == ((0, "y"),)  # `event` is a global here
    assert _guard_reads("({ event }, params) => event[params.field] > 0") == ((3, "field"),)
    assert _guard_reads("({ context }, p) => context[p.a] > context.n") == ((2, "a"), (0, "n"))
    for code, _, _, _ in CASES:
        reads = _guard_reads(code)
        uses_whole = any(part in code for part in ("Object.keys", " in context", "hasOwnProperty(", "hasOwnProperty)", "valueOf?.",
                                                   "...", "['name']", "c = context", "} = context", "eval",
                                                   "\\u", "JSON.stringify", "() =>", "(args", "p.field =",
                                                   "Object.assign(p", "+ '']", "comment"))
        assert (reads is None) == uses_whole, code


def test_whether_module_state_can_change_is_worked_out_again_after_define() -> None:
    sandbox = JsSandbox()
    assert sandbox.has_mutable_state is False
    sandbox.define({"LIST": [1]})
    assert sandbox.has_mutable_state is True


def test_undefined_stays_distinct_from_null_and_absent() -> None:
    sandbox = JsSandbox()
    _warm(sandbox)
    code = "({ event }) => event.v === undefined"
    assert sandbox.guard_passes(code, {}, {"type": "A", "v": UNDEFINED}, None, "") is True
    assert sandbox.guard_passes(code, {}, {"type": "A", "v": None}, None, "") is False
    assert sandbox.guard_passes(code, {}, {"type": "A"}, None, "") is True
    present = "({ event }) => event.v === undefined && event.w === null"
    assert sandbox.guard_passes(present, {}, {"type": "A", "v": UNDEFINED, "w": None}, None, "") is True


def test_a_value_changed_in_place_between_calls_is_seen() -> None:
    """Nothing is kept from one call to the next by the identity of the objects: a caller may
    reuse an event dict (or a Python implementation change a context) in place."""
    sandbox = JsSandbox()
    _warm(sandbox)
    for code in ("({ context, event }) => context.n + event.by > 10",  # given only what it reads
                 "({ context, event }) => Object.keys(context).length + event.by > 10"):  # given everything
        context: dict[str, Any] = {"n": 1}
        event: dict[str, Any] = {"type": "ADD", "by": 1}
        assert sandbox.guard_passes(code, context, event, None, "") is False
        event["by"] = 20
        assert sandbox.guard_passes(code, context, event, None, "") is True
        event["by"] = 1
        context["n"] = 50
        context["m"] = 0
        assert sandbox.guard_passes(code, context, event, None, "") is ("keys" not in code)


def test_an_event_dict_reused_in_place_across_transitions_is_seen_by_the_machine() -> None:
    """The engine never changes an event; a caller may. (The sandbox used to keep the JSON of the
    last `{context, event}` by the objects' identity, and answered from the stale copy.)"""
    for code in ("({ event }) => event.x > 5", "({ event }) => Object.values(event).includes(10)"):
        sandbox = JsSandbox()
        impl = implementations_from_code({"guards": {"big": {"code": code}}}, sandbox)
        machine = statekit.create_machine(
            {"id": "m", "initial": "a", "states": {"a": {"on": {"GO": {"guard": "big", "target": "b"}}}, "b": {}}},
            impl)
        snapshot, _ = initial_transition(machine)
        event = {"type": "GO", "x": 1}
        snapshot, _ = transition(machine, snapshot, event)
        assert snapshot.value == "a"
        event["x"] = 10
        snapshot, _ = transition(machine, snapshot, event)
        assert snapshot.value == "b", code


def test_what_a_guard_writes_into_its_arguments_reaches_no_other_call() -> None:
    sandbox = JsSandbox()
    _warm(sandbox)
    context = {"n": 1, "items": [1]}
    event = {"type": "A"}
    writers = ["({ context }) => { context.n = 99; context.items.push(2); return true; }",
               "({ context, event }) => { context.items.length = 0; event.type = 'B'; return true; }",
               "({ context }) => { Object.assign(context, { n: 7 }); return true; }"]
    for writer in writers:
        assert sandbox.guard_passes(writer, context, event, None, "") is True
        assert sandbox.guard_passes("({ context, event }) => context.n === 1 && context.items.length === 1 "
                                    "&& event.type === 'A'", context, event, None, "") is True
        assert sandbox.guard_passes("({ context }) => JSON.stringify(context) === '{\"n\":1,\"items\":[1]}'",
                                    context, event, None, "") is True
    assert context == {"n": 1, "items": [1]} and event == {"type": "A"}


def test_failures_say_where_and_the_sandbox_goes_on() -> None:
    sandbox = JsSandbox(time_limit=0.2)
    _warm(sandbox)
    good = "({ context }) => context.n > 0"
    assert sandbox.guard_passes(good, {"n": 1}, {"type": "A"}, None, "guard 'g'") is True
    with pytest.raises(EngineError) as caught:
        sandbox.guard_passes(LOOP, {}, {"type": "A"}, None, "guard 'loop'")
    assert "time limit" in str(caught.value) and "in guard 'loop'" in str(caught.value)
    with pytest.raises(EngineError, match="time limit"):
        sandbox.guard_passes("({ context }) => { while (context.n) {} }", {"n": 1}, {"type": "A"}, None, "")
    # The context was replaced: the numbers and callers of the old one must not be used in the new one.
    assert sandbox.guard_passes(good, {"n": 0}, {"type": "A"}, None, "guard 'g'") is False
    with pytest.raises(EngineError, match="in guard 'bad'"):
        sandbox.guard_passes("not javascript (((", {}, {"type": "A"}, None, "guard 'bad'")
    with pytest.raises(EngineError, match="not a function"):
        sandbox.guard_passes("42", {}, {"type": "A"}, None, "guard 'n'")
    with pytest.raises(EngineError, match="in guard 't'"):
        sandbox.guard_passes("({ context }) => context.a.b", {}, {"type": "A"}, None, "guard 't'")
    with pytest.raises(EngineError, match="TypeError"):  # params read as `p.field` with no params
        sandbox.guard_passes("({ event }, p) => event[p.field]", {}, {"type": "A"}, None, "guard 'p'")
    assert sandbox.guard_passes(good, {"n": 2}, {"type": "A"}, None, "guard 'g'") is True


def test_the_total_time_budget_holds_for_guards() -> None:
    sandbox = JsSandbox(total_time_limit=0.05)
    _warm(sandbox)
    spin = "({ context }) => { const end = Date.now() + 20; while (Date.now() < end) {} return context.n > 0; }"
    with pytest.raises(EngineError, match="budget"):
        for _ in range(20):
            sandbox.guard_passes(spin, {"n": 1}, {"type": "A"}, None, "guard 'spin'")
    with pytest.raises(EngineError, match="budget"):
        sandbox.guard_passes("({ context }) => context.n > 0", {"n": 1}, {"type": "A"}, None, "guard 'g'")


def test_data_that_is_not_json_is_refused_and_encoding_goes_on() -> None:
    sandbox = JsSandbox()
    _warm(sandbox)
    circular: dict[str, Any] = {"n": 1}
    circular["self"] = circular
    for context, params in (({"x": float("nan")}, None), ({"s": {1, 2}}, None), (circular, None),
                            ({}, {"x": float("inf")}), ({}, object())):
        with pytest.raises(EngineError, match="only receive JSON"):
            sandbox.guard_passes("() => true", context, {"type": "A"}, params, "guard 'g'")
    for value in (float("nan"), float("inf"), {1, 2}, circular):  # read by a guard given what it reads
        with pytest.raises(EngineError, match="only receive JSON"):
            sandbox.guard_passes("({ context }) => context.x !== 0", {"x": value}, {"type": "A"}, None, "")
    # A guard given only what it reads never receives (nor refuses) an entry it does not read.
    assert sandbox.guard_passes("({ context }) => context.n === 1", {"n": 1, "x": float("nan")}, {"type": "A"},
                                None, "") is True
    shared = {"n": 1}  # the same object twice is not a circular reference
    assert sandbox.guard_passes("({ context }) => context.a.n + context.b.n === 2", {"a": shared, "b": shared},
                                {"type": "A"}, None, "") is True


def test_a_guard_run_from_another_thread_takes_the_general_path() -> None:
    sandbox = JsSandbox()
    _warm(sandbox)
    results: list[Any] = []
    thread = threading.Thread(target=lambda: results.append(
        sandbox.guard_passes("({ context }) => context.n * 2 === 42", {"n": 21}, {"type": "A"}, None, "")))
    thread.start()
    thread.join()
    assert results == [True]
    assert sandbox.guard_passes("({ context }) => context.n * 3 === 6", {"n": 2}, {"type": "A"}, None, "") is True
