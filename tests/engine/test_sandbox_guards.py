"""The sandbox's direct path for guards (`JsSandbox.run_guard`): a function called by number
in the QuickJS context, with the JSON of `{context, event}` kept while the same objects come
again. It must answer exactly as the general path (`evaluate`) does, failures included."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from statekit.engine.evaluation import UNDEFINED
from statekit.engine.sandbox import JsSandbox
from statekit.errors import EngineError

LOOP = "() => { while (true) {} }"
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
]


def _warm(sandbox: JsSandbox) -> None:
    # The direct path starts once the context exists on this thread (the first call makes it).
    sandbox.evaluate("() => 0", {}, None)


@pytest.mark.parametrize(("code", "context", "event", "params"), CASES)
def test_a_guard_run_directly_answers_as_the_general_path(code: str, context: Any, event: Any, params: Any) -> None:
    direct, general = JsSandbox(), JsSandbox()
    _warm(direct)
    expected = general.evaluate(code, {"context": context, "event": event}, params, where="guard 'g'")
    assert direct.run_guard(code, context, event, params, "guard 'g'") == expected
    assert direct.run_guard(code, context, event, params, "guard 'g'") == expected  # numbered now
    assert type(direct.run_guard(code, context, event, params, "")) is type(expected)


def test_undefined_stays_distinct_from_null_both_ways() -> None:
    sandbox = JsSandbox()
    _warm(sandbox)
    assert sandbox.run_guard("({ event }) => event.v", {}, {"type": "A", "v": UNDEFINED}, None, "") is UNDEFINED
    assert sandbox.run_guard("({ event }) => event.v", {}, {"type": "A", "v": None}, None, "") is None


def test_the_same_objects_changed_between_calls_are_not_expected_but_new_ones_are_seen() -> None:
    sandbox = JsSandbox()
    _warm(sandbox)
    code = "({ context, event }) => context.n + event.by"
    event = {"type": "ADD", "by": 1}
    assert sandbox.run_guard(code, {"n": 1}, event, None, "") == 2
    assert sandbox.run_guard(code, {"n": 5}, event, None, "") == 6  # a new context (as an assign makes)
    assert sandbox.run_guard(code, {"n": 5}, {"type": "ADD", "by": 10}, None, "") == 15


def test_failures_say_where_and_the_sandbox_goes_on() -> None:
    sandbox = JsSandbox(time_limit=0.2)
    _warm(sandbox)
    good = "({ context }) => context.n > 0"
    assert sandbox.run_guard(good, {"n": 1}, {"type": "A"}, None, "guard 'g'") is True
    with pytest.raises(EngineError) as caught:
        sandbox.run_guard(LOOP, {}, {"type": "A"}, None, "guard 'loop'")
    assert "time limit" in str(caught.value) and "in guard 'loop'" in str(caught.value)
    # The context was replaced: the numbers of the old one must not be used in the new one.
    assert sandbox.run_guard(good, {"n": 0}, {"type": "A"}, None, "guard 'g'") is False
    with pytest.raises(EngineError, match="in guard 'bad'"):
        sandbox.run_guard("not javascript (((", {}, {"type": "A"}, None, "guard 'bad'")
    with pytest.raises(EngineError, match="not a function"):
        sandbox.run_guard("42", {}, {"type": "A"}, None, "guard 'n'")
    assert sandbox.run_guard(good, {"n": 2}, {"type": "A"}, None, "guard 'g'") is True


def test_data_that_is_not_json_is_refused_and_encoding_goes_on() -> None:
    sandbox = JsSandbox()
    _warm(sandbox)
    circular: dict[str, Any] = {"n": 1}
    circular["self"] = circular
    for context, params in (({"x": float("nan")}, None), ({"s": {1, 2}}, None), (circular, None),
                            ({}, {"x": float("inf")}), ({}, object())):
        with pytest.raises(EngineError, match="only receive JSON"):
            sandbox.run_guard("() => true", context, {"type": "A"}, params, "guard 'g'")
    shared = {"n": 1}  # the same object twice is not a circular reference
    assert sandbox.run_guard("({ context }) => context.a.n + context.b.n", {"a": shared, "b": shared},
                             {"type": "A"}, None, "") == 2


def test_a_guard_run_from_another_thread_takes_the_general_path() -> None:
    sandbox = JsSandbox()
    _warm(sandbox)
    results: list[Any] = []
    thread = threading.Thread(target=lambda: results.append(
        sandbox.run_guard("({ context }) => context.n * 2", {"n": 21}, {"type": "A"}, None, "")))
    thread.start()
    thread.join()
    assert results == [42]
    assert sandbox.run_guard("({ context }) => context.n * 3", {"n": 2}, {"type": "A"}, None, "") == 6
