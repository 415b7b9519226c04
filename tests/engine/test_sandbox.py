"""The QuickJS sandbox for inline JavaScript (`statekit.engine.sandbox.JsSandbox`).

Inline functions from XState source (guards, assign values, event creators, outputs, context
factories) run only here: JSON in, JSON out, no host access, and a time, memory and stack
limit per call. These tests drive the sandbox directly, then through `simulate_machine`.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from typing import Any

import pytest
import quickjs  # a dependency of the base install

from statekit import tools
from statekit.engine.evaluation import UNDEFINED
from statekit.engine.sandbox import MAX_SOURCE_CHARS, JsSandbox
from statekit.errors import EngineError

LOOP = "() => { while (true) {} }"
ALLOCATE_FOREVER = "() => { const chunks = []; while (true) { chunks.push(new Array(100000).fill(chunks.length)); } }"
RECURSE_FOREVER = "() => { const down = (n) => down(n + 1) + 1; return down(0); }"


@pytest.fixture
def sandbox() -> JsSandbox:
    # Small limits keep the failing cases quick; the messages are what is checked, never time.
    return JsSandbox(time_limit=0.2, memory_limit=16 * 1024 * 1024)


def _failure(sandbox: JsSandbox, code: str, args: dict[str, Any] | None = None, params: Any = None,
             where: str = "") -> str:
    with pytest.raises(EngineError) as caught:
        sandbox.evaluate(code, args or {}, params, where=where)
    return str(caught.value)


# -- JSON in and out ------------------------------------------------------------------------------


def test_arguments_arrive_as_json_and_results_come_back_as_json(sandbox: JsSandbox) -> None:
    args = {"context": {"count": 2, "items": ["a", None, True, 1.5, {"deep": [1]}], "name": "été 😀"},
            "event": {"type": "ADD", "by": 3}}
    result = sandbox.evaluate(
        "({ context, event }) => ({ count: context.count + event.by, items: context.items, "
        "types: context.items.map((item) => item === null ? 'null' : typeof item), name: context.name.toUpperCase() })",
        args, None)
    assert result == {"count": 5, "items": ["a", None, True, 1.5, {"deep": [1]}],
                      "types": ["string", "null", "boolean", "number", "object"], "name": "ÉTÉ 😀"}


def test_params_are_passed_and_absent_params_are_undefined(sandbox: JsSandbox) -> None:
    code = "(args, params) => params === undefined ? 'none' : params.min + args.context.n"
    assert sandbox.evaluate(code, {"context": {"n": 1}}, {"min": 10}) == 11
    assert sandbox.evaluate(code, {"context": {"n": 1}}, None) == "none"


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("() => undefined", UNDEFINED),  # undefined is not null (issue 12)
        ("() => {}", UNDEFINED),  # a block body without return
        ("() => null", None),
        ("() => 0 / 0", None),  # NaN becomes null, as JSON.stringify makes it
        ("() => [1, undefined, () => 2]", [1, UNDEFINED, None]),  # a function in an array is null in JSON
        ("() => ({ kept: 1, dropped: undefined })", {"kept": 1, "dropped": UNDEFINED}),
        ("() => 2 ** 53", 2**53),
        ("() => 0.1 + 0.2", 0.30000000000000004),
        ("() => -0", 0),
        ("() => 'a\\u0000b'", "a\x00b"),
        ("function () { return 'function expression'; }", "function expression"),
        ("function named({ context }) { return context; }", UNDEFINED),
        ("async () => 1", {}),  # a Promise is an object without JSON fields; it never settles
    ],
)
def test_results_are_what_json_stringify_makes_of_them(sandbox: JsSandbox, code: str, expected: Any) -> None:
    """JSON's view of a result, except that `undefined` stays `UNDEFINED` (never `null`)."""
    assert sandbox.evaluate(code, {}, None) == expected


def test_undefined_crosses_into_the_sandbox_as_undefined(sandbox: JsSandbox) -> None:
    code = ("({ context, event }) => [context.a === undefined, 'a' in context, event.list[0] === undefined,"
            " event.list.length, context.b === null]")
    args = {"context": {"a": UNDEFINED, "b": None}, "event": {"list": [UNDEFINED, 1]}}
    assert sandbox.evaluate(code, args, None) == [True, True, True, 2, True]
    assert sandbox.evaluate("(args, params) => params === undefined", {}, UNDEFINED) is True


def test_module_constants_are_defined_read_only_and_other_names_fail_with_their_name() -> None:
    box = JsSandbox(constants={"LIMIT": 3, "NAMES": ["a", "b"]}, unavailable={"helper": "it is a function"})
    assert box.evaluate("({ context }) => context.n < LIMIT && NAMES.includes('b')", {"context": {"n": 1}}, None)
    # `const` semantics: the binding is read-only, the array it holds is not (and stays changed).
    assert box.evaluate("() => { try { NAMES = []; } catch (e) { NAMES.push('c'); } return NAMES.length; }",
                        {}, None) == 3
    assert box.evaluate("() => NAMES.length", {}, None) == 3
    with pytest.raises(EngineError, match="'helper' is defined outside the machine"):
        box.evaluate("() => helper()", {}, None)


def test_enqueue_collects_actions_and_asks_check_for_named_guards(sandbox: JsSandbox) -> None:
    asked: list[str] = []

    def check(guard: Any) -> bool:
        asked.append(guard.type)
        return guard.type == "yes"

    body = ("({ context, enqueue, check }) => { enqueue.assign({ n: ({ context }) => context.n + 1 });"
            " if (check('yes')) enqueue.raise({ type: 'Y' }); if (check({ type: 'no' })) enqueue('never');"
            " if (check(() => context.n === 0)) enqueue({ type: 'named', params: { a: 1 } }); }")
    actions = sandbox.enqueue(body, {"context": {"n": 0}, "event": {"type": "E"}}, None, check=check)
    assert asked[-2:] == ["yes", "no"]
    assert [a if isinstance(a, str) else a["type"] for a in actions] == ["xstate.assign", "xstate.raise", "named"]
    reference = actions[0]["assignment"]["n"]["$js"]
    assert sandbox.evaluate(reference, {"context": {"n": 41}, "event": {}}, None) == 42


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("() => 10n", "BigInt"),
        ("() => { const a = {}; a.self = a; return a; }", "circular"),
        ("() => () => 1", "not JSON"),
        ("() => Symbol('s')", "not JSON"),
    ],
)
def test_results_that_are_not_json_are_refused(sandbox: JsSandbox, code: str, message: str) -> None:
    assert message in _failure(sandbox, code)


def test_arguments_that_are_not_json_are_refused(sandbox: JsSandbox) -> None:
    assert "only receive JSON" in _failure(sandbox, "() => 1", {"context": {"s": {1, 2}}})
    assert "only receive JSON" in _failure(sandbox, "() => 1", {"context": {}}, params=object())
    assert "only receive JSON" in _failure(sandbox, "() => 1", {"context": {"x": float("nan")}})
    assert "only receive JSON" in _failure(sandbox, "() => 1", {"context": {}}, params={"x": float("inf")})


# -- limits ---------------------------------------------------------------------------------------


def test_an_endless_loop_stops_at_the_time_limit(sandbox: JsSandbox) -> None:
    message = _failure(sandbox, LOOP, where="a guard")
    assert "time limit" in message and "in a guard" in message


def test_the_time_limit_is_per_call_not_per_sandbox(sandbox: JsSandbox) -> None:
    # Each call spins for a tenth of the limit: together they exceed it twice, one by one never.
    spin = "({ event }) => { const end = Date.now() + event.ms; let n = 0; while (Date.now() < end) n++; return n > 0; }"
    assert all(sandbox.evaluate(spin, {"event": {"ms": 20}}, None) for _ in range(20))


def test_allocating_forever_stops_at_the_memory_limit(sandbox: JsSandbox) -> None:
    assert "memory limit" in _failure(sandbox, ALLOCATE_FOREVER)


def test_a_huge_string_stops_at_the_memory_limit(sandbox: JsSandbox) -> None:
    assert "memory limit" in _failure(sandbox, "() => 'x'.repeat(64 * 1024 * 1024).length")


def test_deep_recursion_stops_at_the_stack_limit(sandbox: JsSandbox) -> None:
    assert "stack limit" in _failure(sandbox, RECURSE_FOREVER)


def test_the_default_limits_stop_runaway_code() -> None:
    sandbox = JsSandbox()
    assert "time limit" in _failure(sandbox, LOOP)
    assert "memory limit" in _failure(sandbox, ALLOCATE_FOREVER)
    assert "stack limit" in _failure(sandbox, RECURSE_FOREVER)


def test_the_sandbox_works_again_after_each_kind_of_failure(sandbox: JsSandbox) -> None:
    increment = "({ context }) => context.n + 1"
    assert sandbox.evaluate(increment, {"context": {"n": 0}}, None) == 1
    for code in (LOOP, ALLOCATE_FOREVER, RECURSE_FOREVER, "() => { throw new Error('x'); }", "not javascript ((("):
        with pytest.raises(EngineError):
            sandbox.evaluate(code, {}, None)
        assert sandbox.evaluate(increment, {"context": {"n": 41}}, None) == 42


def test_deep_recursion_on_a_thread_with_a_small_stack_does_not_kill_the_process() -> None:
    # QuickJS's stack limit (512 KB) is above such a thread's whole C stack: run directly there,
    # the recursion would overflow the C stack (SIGSEGV) before QuickJS's own check fires.
    script = (
        "import threading\n"
        "from statekit.engine.sandbox import JsSandbox\n"
        "from statekit.errors import EngineError\n"
        "threading.stack_size(256 * 1024)\n"
        "def run():\n"
        "    try:\n"
        f"        JsSandbox().evaluate({RECURSE_FOREVER!r}, {{}}, None)\n"
        "    except EngineError as error:\n"
        "        print(error)\n"
        "thread = threading.Thread(target=run)\n"
        "thread.start()\n"
        "thread.join()\n"
    )
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False, timeout=120)
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert "stack limit" in completed.stdout


def test_a_sandbox_used_from_another_thread_keeps_working(sandbox: JsSandbox) -> None:
    increment = "({ context }) => context.n + 1"
    assert sandbox.evaluate(increment, {"context": {"n": 1}}, None) == 2
    results: list[Any] = []
    thread = threading.Thread(target=lambda: results.append(sandbox.evaluate(increment, {"context": {"n": 2}}, None)))
    thread.start()
    thread.join()
    assert results == [3]
    assert sandbox.evaluate(increment, {"context": {"n": 3}}, None) == 4
    assert "stack limit" in _failure(sandbox, RECURSE_FOREVER)


# -- errors ---------------------------------------------------------------------------------------


def test_a_thrown_error_keeps_its_message_and_says_where(sandbox: JsSandbox) -> None:
    message = _failure(sandbox, "() => { throw new RangeError('out of range: 7'); }", where="assign of 'n'")
    assert "RangeError: out of range: 7" in message
    assert "in assign of 'n'" in message


def test_a_thrown_non_error_value_is_reported(sandbox: JsSandbox) -> None:
    assert "plain string" in _failure(sandbox, "() => { throw 'plain string'; }")


def test_a_type_error_from_reading_missing_data_is_reported(sandbox: JsSandbox) -> None:
    message = _failure(sandbox, "({ context }) => context.user.name", {"context": {}})
    assert "TypeError" in message and "name" in message


@pytest.mark.parametrize("code", ["42", "'a string'", "({ a: 1 })", "[() => 1]", "null", "undefined"])
def test_source_that_is_not_a_function_is_refused(sandbox: JsSandbox, code: str) -> None:
    assert "not a function" in _failure(sandbox, code)


@pytest.mark.parametrize(
    "code",
    [
        "this is not ((( javascript",
        "() => 1); globalThis.injected = true; (() => 2",  # closing the wrapper's parenthesis
        "import * as std from 'std'",
        "",
    ],
)
def test_source_that_is_not_one_function_expression_is_refused(sandbox: JsSandbox, code: str) -> None:
    with pytest.raises(EngineError):
        sandbox.evaluate(code, {}, None)
    assert sandbox.evaluate("() => typeof globalThis.injected", {}, None) == "undefined"


def test_source_longer_than_the_limit_is_refused_before_it_runs(sandbox: JsSandbox) -> None:
    huge = "() => " + "1 + " * (MAX_SOURCE_CHARS // 4) + "1"
    assert len(huge) > MAX_SOURCE_CHARS
    assert "longer than" in _failure(sandbox, huge)
    just_under = "() => '" + "x" * (MAX_SOURCE_CHARS - 20) + "'.length"
    assert len(just_under) <= MAX_SOURCE_CHARS
    assert sandbox.evaluate(just_under, {}, None) == MAX_SOURCE_CHARS - 20


# -- no host access -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["fetch", "require", "process", "std", "os", "module", "exports", "setTimeout", "setInterval",
     "XMLHttpRequest", "WebSocket", "Deno", "Bun", "scriptArgs", "print", "console"],
)
def test_host_objects_are_undefined(sandbox: JsSandbox, name: str) -> None:
    assert sandbox.evaluate(f"() => typeof {name}", {}, None) == "undefined"


def test_the_function_constructor_does_not_reach_a_host(sandbox: JsSandbox) -> None:
    code = "() => [typeof Function('return this')().process, typeof (0, eval)('this').require]"
    assert sandbox.evaluate(code, {}, None) == ["undefined", "undefined"]


def test_dynamic_import_never_yields_a_module(sandbox: JsSandbox) -> None:
    # The sandbox runs no pending jobs, so an import() promise never settles inside it ...
    start = ("() => { import('std').then((m) => { globalThis.leak = typeof m.open; }, "
             "(e) => { globalThis.leak = 'refused'; }); return typeof globalThis.leak; }")
    assert sandbox.evaluate(start, {}, None) == "undefined"
    assert sandbox.evaluate("() => typeof globalThis.leak", {}, None) == "undefined"
    # ... and the QuickJS runtime it uses refuses the host modules when the jobs do run.
    context = quickjs.Context()
    context.eval("globalThis.r = 'pending'; import('std').then(() => { r = 'loaded'; }, (e) => { r = String(e); });")
    while context.execute_pending_job():
        pass
    assert "could not load module 'std'" in context.eval("r")
    with pytest.raises(quickjs.JSException, match="could not load module 'os'"):
        context.module("import * as os from 'os';")


def test_sandboxes_share_nothing() -> None:
    first, second = JsSandbox(), JsSandbox()
    first.evaluate("() => { globalThis.mark = 1; Object.prototype.polluted = true; }", {}, None)
    assert second.evaluate("() => [typeof globalThis.mark, ({}).polluted === undefined]", {}, None) == [
        "undefined", True]


def test_inline_code_cannot_change_what_other_inline_functions_receive_or_return(sandbox: JsSandbox) -> None:
    poison = ("() => { JSON.parse = () => ({ context: { n: 1000 } }); JSON.stringify = () => '\"poisoned\"'; "
              "globalThis.__fns = null; globalThis.eval = () => () => 'hijacked'; return 0; }")
    sandbox.evaluate(poison, {}, None)
    assert sandbox.evaluate("({ context }) => context.n + 1", {"context": {"n": 1}}, None) == 2
    assert sandbox.evaluate("() => ['fresh', 'source']", {}, None) == ["fresh", "source"]


# -- through simulate_machine ----------------------------------------------------------------------


def _assign_machine(code: str) -> dict[str, Any]:
    return {
        "id": "m",
        "initial": "a",
        "context": {"n": 0},
        "states": {
            "a": {"on": {
                "INC": {"actions": {"type": "xstate.assign", "assignment": {"n": {"$js": "({ context }) => context.n + 1"}}}},
                "GO": {"target": "b", "actions": {"type": "xstate.assign", "assignment": {"n": {"$js": code}}}},
            }},
            "b": {},
        },
    }


def test_a_looping_assign_ends_the_simulation_with_an_error_step_naming_the_transition() -> None:
    result = tools.call("simulate_machine", {"machine": _assign_machine(LOOP),
                                              "events": [{"type": "INC"}, {"type": "GO"}, {"type": "INC"}]})
    steps = result["steps"]
    assert [step["event"]["type"] for step in steps] == ["xstate.init", "INC", "GO"]
    assert steps[1]["context"] == {"n": 1} and steps[1]["status"] == "active"
    last = steps[-1]
    assert last["status"] == "error"
    assert last["value"] == "a" and last["context"] == {"n": 1}  # the step did not happen
    assert "time limit" in last["error"] and "transition 'm.a:GO:0'" in last["error"]
    stopped = result["execution"]["stopped"]
    assert "'GO'" in stopped and "time limit" in stopped and "m.a:GO:0" in stopped
    assert result["execution"]["eventsProcessed"] == 2 and result["execution"]["eventsGiven"] == 3


def test_a_looping_inline_guard_ends_the_simulation_with_an_error_step() -> None:
    machine = {"id": "m", "initial": "a", "states": {
        "a": {"on": {"GO": {"target": "b", "guard": {"type": "spin", "code": RECURSE_FOREVER}}}}, "b": {}}}
    result = tools.call("simulate_machine", {"machine": machine, "events": [{"type": "GO"}]})
    last = result["steps"][-1]
    assert last["status"] == "error" and last["value"] == "a"
    assert "Unable to evaluate guard" in last["error"] and "stack limit" in last["error"]
    assert result["execution"]["stopped"] is not None


def test_a_context_factory_that_allocates_forever_fails_the_first_step() -> None:
    machine = {"id": "m", "initial": "a", "context": {"$js": ALLOCATE_FOREVER}, "states": {"a": {}}}
    result = tools.call("simulate_machine", {"machine": machine, "events": []})
    first = result["steps"][0]
    assert first["status"] == "error" and "memory limit" in first["error"]


def test_a_simulation_after_a_failed_one_runs_normally() -> None:
    tools.call("simulate_machine", {"machine": _assign_machine(LOOP), "events": [{"type": "GO"}]})
    result = tools.call("simulate_machine", {"machine": _assign_machine("({ event }) => event.value * 2"),
                                              "events": [{"type": "GO", "value": 21}]})
    assert result["steps"][-1]["context"] == {"n": 42} and result["execution"]["stopped"] is None


# -- named implementations given as code (setup({...}) read from XState source) -----------------


def test_named_implementations_given_as_code_run_in_the_sandbox() -> None:
    import statekit
    from statekit.engine.inline import implementations_from_code
    from statekit.engine.machine import Machine

    setup_code = {
        "guards": {
            "atLeast": {"code": "({ context }, params) => context.n >= params.min"},
            "never": {"value": {"type": "xstate.not", "guard": "always"}},
            "always": {"code": "() => true"},
            "elsewhere": {"$ref": "importedGuards"},
        },
        "actions": {
            "bump": {"type": "xstate.assign", "assignment": {"n": {"$js": "({ context }, params) => context.n + params.by"}}},
            "note": {"code": "() => { throw new Error('executed only by an actor'); }"},
        },
        "delays": {"later": {"code": "({ context }) => context.n * 100"}, "fixed": {"value": 5}},
        "actors": {"worker": {"code": "fromPromise(async () => 1)"}, "external": {"$ref": "imported"}},
    }
    config = {
        "id": "m", "initial": "a", "context": {"n": 0},
        "states": {
            "a": {
                "on": {
                    "BUMP": {"actions": [{"type": "bump", "params": {"by": 2}}, "note"]},
                    "GO": [{"target": "b", "guard": {"type": "atLeast", "params": {"min": 4}}}],
                    "NEVER": {"target": "b", "guard": "never"},
                    "ELSE": {"target": "b", "guard": "elsewhere"},
                },
            },
            "b": {"after": {"later": "a", "fixed": "a"}, "invoke": {"id": "w", "src": "worker"}},
        },
    }
    implementations = implementations_from_code(setup_code, JsSandbox())
    assert set(implementations.actors) == {"worker"}
    machine = Machine.from_config(config, implementations)
    snapshot, _ = statekit.initial_transition(machine)
    snapshot, _ = statekit.transition(machine, snapshot, {"type": "GO"})
    assert snapshot.value == "a"  # 0 < 4
    snapshot, actions = statekit.transition(machine, snapshot, {"type": "BUMP"})
    assert snapshot.context == {"n": 2} and [action.type for action in actions] == ["note"]
    snapshot, _ = statekit.transition(machine, snapshot, {"type": "NEVER"})
    assert snapshot.value == "a"
    snapshot, _ = statekit.transition(machine, snapshot, {"type": "BUMP"})
    snapshot, actions = statekit.transition(machine, snapshot, {"type": "GO"})
    assert snapshot.value == "b" and snapshot.context == {"n": 4}
    delays = {action.params["delay"] for action in actions if action.type == "xstate.raise"}
    assert delays == {400, 5}
    assert list(snapshot.children) == ["w"]
    with pytest.raises(EngineError, match="'elsewhere'"):
        statekit.transition(machine, statekit.initial_transition(machine)[0], {"type": "ELSE"})
    with pytest.raises(EngineError, match="executed only by an actor") as caught:
        note = next(action for action in statekit.transition(machine, statekit.initial_transition(machine)[0],
                                                              {"type": "BUMP"})[1] if action.type == "note")
        assert note.run is not None and note.args is not None
        note.run(note.args, note.params)
    assert "action 'note'" in str(caught.value)
