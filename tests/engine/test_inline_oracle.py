"""Inline JavaScript against real XState: XState source read by statekit, run step by step.

Each case in `tests/oracle/inline/cases/*.js` is XState source whose guards, `assign` values,
event creators, outputs and context factories are inline functions (header comments give the
events and the optional input). `tests/oracle/inline/run.mjs` runs every case in node with the
real `xstate@5.33.3` (development build); this module reads the same source with statekit's
XState source reader (`read_any(source, "xstate-ts")`, which never executes it), runs it with
the inline functions in the QuickJS sandbox (`JsSandbox`) and the `setup({...})`
implementations extracted from the source, and compares every step: value, context, status,
tags, output, action types, action params, children, and thrown errors. The same source also
goes through the `simulate_machine` tool (format `xstate-ts`), whose steps must agree with
XState's too.

Error messages: XState's own words (`Unable to evaluate guard in transition for event ...`)
must match exactly; the message of a JavaScript error thrown by the inline code must appear in
statekit's message when the code threw it (`throw new Error('...')`), while the wording of a
`TypeError` raised by the JavaScript engine itself differs between V8 and QuickJS, so only its
kind is compared.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

import statekit
from node_oracle import oracle_module, run_node
from statekit import tools
from statekit.engine.actor import Actor
from statekit.engine.implementations import Implementations
from statekit.engine.inline import implementations_from_code
from statekit.engine.machine import Machine
from statekit.engine.sandbox import JsSandbox
from statekit.errors import MachineDefinitionError, ToolError

# The step description both oracle suites share.
STEPS = oracle_module("steps.py")

INLINE_DIR = Path(__file__).resolve().parents[1] / "oracle" / "inline"
ORACLE_DIR = INLINE_DIR.parent
CASE_FILES = sorted((INLINE_DIR / "cases").glob("*.js"))
#: Cases translated from XState's own test suite (`harvest_xstate.py`): `{name, from, source, events, input?}`.
SUITE_FILES = sorted((INLINE_DIR / "xstate").glob("*.json"))
SUITE_CASES: dict[str, dict[str, Any]] = {
    case["name"]: case for path in SUITE_FILES for case in json.loads(path.read_text(encoding="utf-8"))
}
CASE_NAMES = [path.stem for path in CASE_FILES] + list(SUITE_CASES)
STEP_FIELDS = ("value", "context", "status", "tags", "output", "actions", "action_params", "children")
ERROR_CASE_MARKERS = ("error", "throws")
HANG_GUARD_ITERATIONS = 10_000
_HEADER = re.compile(r"^//\s*(events|input):\s*(.*)$", re.MULTILINE)

#: Cases on which statekit is known to differ from XState, with the reason. They are strict
#: xfails: when a fix makes one pass, the suite says so and the entry must go.
KNOWN_DIFFERENCES: dict[str, str] = {}
#: Cases the running actor refuses (simulate_machine, statekit's `Actor`), with what its error says
#: (`refused_running.json`): the code acts on the running actor (`self.send(...)`,
#: `self.getSnapshot()`, `system.get(...)`), which statekit does not run. statekit's pure transition
#: follows XState's pure transition on them (the actor is never started) and must match it like
#: every other case; `test_running_actor_refuses` checks that simulate_machine and the Actor stop
#: with that error (never a plausible trace), and `validate_machine` warns.
RUNNING_REFUSED: dict[str, str] = json.loads((INLINE_DIR / "refused_running.json").read_text(encoding="utf-8"))


def _source(name: str) -> str:
    if name in SUITE_CASES:
        return str(SUITE_CASES[name]["source"])
    return (INLINE_DIR / "cases" / f"{name}.js").read_text(encoding="utf-8")


def _case_header(name: str) -> dict[str, Any]:
    """The events and input of a case: its header comments, or a suite case's fields."""
    if name in SUITE_CASES:
        case = SUITE_CASES[name]
        return {key: case[key] for key in ("events", "input") if key in case}
    return _header(_source(name))


def _header(source: str) -> dict[str, Any]:
    return {match.group(1): json.loads(match.group(2)) for match in _HEADER.finditer(source)}


# -- XState's side --------------------------------------------------------------------------


@pytest.fixture(scope="session")
def xstate_traces() -> dict[str, list[dict[str, Any]]]:
    """XState's trace of every inline case, by case name, from one node run."""
    results = run_node(INLINE_DIR / "run.mjs", packages=[ORACLE_DIR / "node_modules" / "xstate"])
    return {result["name"]: result["steps"] for result in results}


# -- statekit's side ------------------------------------------------------------------------


def _read(source: str) -> tuple[Any, Mapping[str, Any]]:
    """The model of the case's machine (the reader) and its `setup({...})` implementations.

    `read_any` gives the model only; the implementations come from the extraction the reader
    itself runs (`statekit.extract.extract_machines`): guards and custom actions as
    `{"code": source}`, built-in actions (`assign(...)`, `raise(...)`) as their `xstate.*`
    objects, delays as code or values, actors by name.
    """
    from statekit.extract import extract_machines
    from statekit.formats import read_any

    outcome = read_any(source, "xstate-ts")
    assert outcome.format == "xstate-ts"
    machines = extract_machines(source, "case.js")["machines"]
    # The reader reads the first machine; a case's other machines are inline children of it.
    assert machines, "a case holds a machine"
    implementations = machines[0]["implementations"]
    assert isinstance(implementations, Mapping)
    return outcome.model, implementations


def _machine(name: str) -> tuple[Machine, dict[str, Any]]:
    source = _source(name)
    model, setup_implementations = _read(source)
    sandbox = JsSandbox()
    implementations: Implementations = implementations_from_code(setup_implementations, sandbox)
    machine = Machine(model, implementations)
    if machine.max_iterations is None:  # the config's `options.maxIterations` wins, as in XState
        machine.max_iterations = HANG_GUARD_ITERATIONS
    return machine, _case_header(name)


def statekit_trace(name: str) -> list[dict[str, Any]]:
    """The same trace as run.mjs's `runSource`, produced by statekit from the read source."""
    init_event = {"type": "xstate.init"}
    steps: list[dict[str, Any]] = []
    try:
        # As run.mjs loads the machine inside its try: XState's createMachine is lazy, and a config
        # it refuses throws from initialTransition, where statekit refuses it while compiling.
        machine, header = _machine(name)
    except (MachineDefinitionError, ToolError) as error:
        return [{"event": init_event, "error": error.message}]
    try:
        snapshot, actions = statekit.initial_transition(machine, input=header.get("input"))
        steps.append(STEPS.describe_step(init_event, snapshot, actions))
    except Exception as error:  # the trace records any failure, as run.mjs does
        steps.append({"event": init_event, "error": str(error) or type(error).__name__})
        return steps
    for event in header.get("events", []):
        try:
            snapshot, actions = statekit.transition(machine, snapshot, dict(event))
            steps.append(STEPS.describe_step(event, snapshot, actions))
        except Exception as error:
            steps.append({"event": event, "error": str(error) or type(error).__name__})
            break
    return steps


# -- comparison -----------------------------------------------------------------------------


def _canonical(value: Any) -> str:
    return json.dumps(STEPS.plain(value), sort_keys=True)


#: How V8 words the errors the JavaScript engine raises itself (QuickJS words them otherwise).
_ENGINE_WORDED = re.compile(r"^(Cannot read properties of|Cannot set properties of|\S+ is not (a function|defined|iterable))")


def _same_message(expected: str | None, actual: str | None) -> bool:
    """Whether statekit's error message says what XState's says (see the module docstring)."""
    if expected is None or actual is None:
        return expected is None and actual is None
    if "\n" in expected:  # XState's words, then the inline code's error message
        head, _, thrown = expected.partition("\n")
        actual_head, _, actual_rest = actual.partition("\n")
        return actual_head == head and _same_thrown(thrown, actual_rest)
    return _same_thrown(expected, actual)


def _same_thrown(expected: str, actual: str) -> bool:
    if _ENGINE_WORDED.match(expected):
        return "TypeError" in actual or "ReferenceError" in actual
    return expected in actual


def _step_differences(expected: Mapping[str, Any], actual: Mapping[str, Any]) -> list[str]:
    if "error" in expected or "error" in actual:
        if "error" in expected and "error" in actual:
            if _same_message(expected["error"], actual["error"]):
                return []
            return [f"error: XState {expected['error']!r} | statekit {actual['error']!r}"]
        if "error" in expected:
            return [f"XState threw {expected['error']!r}, statekit did not: "
                    f"{json.dumps({k: actual.get(k) for k in STEP_FIELDS}, sort_keys=True)}"]
        return [f"statekit threw {actual['error']!r}, XState did not: "
                f"{json.dumps({k: expected.get(k) for k in STEP_FIELDS}, sort_keys=True)}"]
    differences = [
        f"{field}: XState {_canonical(expected.get(field))} | statekit {_canonical(actual.get(field))}"
        for field in STEP_FIELDS
        if _canonical(expected.get(field)) != _canonical(actual.get(field))
    ]
    if not _same_message(expected.get("snapshot_error"), actual.get("snapshot_error")):
        differences.append(f"snapshot_error: XState {expected.get('snapshot_error')!r} | "
                           f"statekit {actual.get('snapshot_error')!r}")
    return differences


#: An actor id XState books from its process-wide session counter (`x:<n>`): a spawned actor
#: without an `id`, or `self`. The number depends on how many actors the process made before.
_SESSION_ID = re.compile(r"^x:\d+$")


def _named_sessions(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`steps` with each session id renamed `(session N)`, N counting distinct ids in order of first
    appearance (context, output, action params, then children, step by step). Both sides are
    renamed alike, so which actor is which still has to agree; only the counter's value is not
    compared (node's counter has run through every case before this one)."""
    names: dict[str, str] = {}

    def rename(value: Any) -> Any:
        if isinstance(value, str) and _SESSION_ID.match(value):
            return names.setdefault(value, f"(session {len(names) + 1})")
        if isinstance(value, dict):
            return {rename(key): rename(item) for key, item in value.items()}
        if isinstance(value, list):
            return [rename(item) for item in value]
        return value

    renamed: list[dict[str, Any]] = []
    for step in steps:
        out = dict(step)
        for field in ("context", "output", "action_params", "children"):
            if field in out:
                out[field] = rename(out[field])
        if isinstance(out.get("children"), list):
            out["children"] = sorted(out["children"])
        renamed.append(out)
    return renamed


def _trace_report(name: str, expected: list[dict[str, Any]], actual: list[dict[str, Any]]) -> str | None:
    expected, actual = _named_sessions(expected), _named_sessions(actual)
    lines: list[str] = []
    for index in range(max(len(expected), len(actual))):
        event_type = (expected[index] if index < len(expected) else actual[index])["event"]["type"]
        where = f"step {index} ({event_type})"
        if index >= len(expected):
            lines.append(f"{where}: statekit has this step, XState stopped before it")
        elif index >= len(actual):
            lines.append(f"{where}: XState has this step, statekit stopped before it")
        else:
            lines.extend(f"{where}: {difference}" for difference in _step_differences(expected[index], actual[index]))
    if not lines:
        return None
    return "\n".join([f"inline case {name!r} differs from XState:", *("  " + line for line in lines)])


def _case_param(name: str) -> Any:
    marks = []
    if name in KNOWN_DIFFERENCES:
        marks.append(pytest.mark.xfail(reason=KNOWN_DIFFERENCES[name], strict=True))
    return pytest.param(name, id=name, marks=marks)


@pytest.mark.parametrize("name", sorted(RUNNING_REFUSED))
def test_running_actor_refuses(name: str) -> None:
    """simulate_machine and statekit's Actor stop with the error where the code acts on the running
    actor; the pure transition's trace is held to XState's by `test_inline_case_matches_xstate`."""
    header = _case_header(name)
    result = tools.call("simulate_machine", {"machine": _source(name), "events": header.get("events", []),
                                             **({"input": header["input"]} if "input" in header else {})})
    errors = [str(step.get("error", "")) for step in result["steps"]]
    assert any(RUNNING_REFUSED[name] in error for error in errors), result["steps"]
    assert result["steps"][-1]["status"] == "error"
    if not header.get("events"):  # a live session starts the same way (start_machine)
        started = tools.call("start_machine", {"machine": _source(name),
                                               **({"input": header["input"]} if "input" in header else {})})
        assert started["snapshot"]["status"] == "error" and RUNNING_REFUSED[name] in started["snapshot"]["error"]
    machine, _ = _machine(name)
    actor = Actor(machine, input=header.get("input")).start()
    for event in header.get("events", []):
        actor.send(dict(event))
    assert actor.get_snapshot().status == "error"
    assert RUNNING_REFUSED[name] in str(actor.get_snapshot().error)


#: What validate_machine says of every machine; none of these is about faithful simulation.
_ROUTINE_CODES = frozenset({"action_not_implemented", "guard_not_implemented", "actor_not_implemented",
                            "delay_not_implemented", "unreachable_state"})


@pytest.mark.parametrize("name", sorted(RUNNING_REFUSED))
def test_validate_machine_warns_where_simulation_is_refused(name: str) -> None:
    """Wherever simulate would stop because it cannot be faithful, validate_machine says so first."""
    result = tools.call("validate_machine", {"machine": _source(name)})
    assert {issue["code"] for issue in result["issues"]} - _ROUTINE_CODES, result


MATCHED_NAMES = CASE_NAMES
SIMULATED_NAMES = [name for name in CASE_NAMES if name not in RUNNING_REFUSED]


@pytest.mark.parametrize("name", [_case_param(name) for name in MATCHED_NAMES])
def test_inline_case_matches_xstate(name: str, xstate_traces: dict[str, list[dict[str, Any]]]) -> None:
    report = _trace_report(name, xstate_traces[name], statekit_trace(name))
    if report is not None:
        pytest.fail(report, pytrace=False)


# -- the corpus itself ----------------------------------------------------------------------


def test_the_corpus_is_large_and_covers_every_kind_of_inline_code() -> None:
    assert len(CASE_NAMES) >= 60
    sources = {name: _source(name) for name in CASE_NAMES}
    needles = {
        "inline guard": "guard: ({",
        "and/or/not": "not(",
        "assign object": "assign({",
        "assign function": "assign(({",
        "always": "always:",
        "context from input": "context: ({ input })",
        "output function": "output: ({",
        "raise creator": "raise(({",
        "emit creator": "emit(({",
        "setup": "setup({",
        "parallel": "type: 'parallel'",
        "throw": "throw new Error(",
    }
    missing = [kind for kind, needle in needles.items() if not any(needle in text for text in sources.values())]
    assert missing == []


def test_every_case_declares_its_events_and_one_machine() -> None:
    for name in CASE_NAMES:
        source = _source(name)
        header = _case_header(name)
        assert isinstance(header.get("events"), list), name
        assert all(isinstance(event, dict) and isinstance(event.get("type"), str) for event in header["events"]), name
        assert source.count("from 'xstate'") == 1, name
        assert source.count("const machine = ") == 1, name


def test_xstate_runs_every_case_and_only_error_cases_fail(xstate_traces: dict[str, list[dict[str, Any]]]) -> None:
    assert set(xstate_traces) == set(CASE_NAMES)
    for name, steps in xstate_traces.items():
        is_error_case = any(marker in name for marker in ERROR_CASE_MARKERS)
        failed = any("error" in step or step.get("status") == "error" for step in steps)
        assert failed == is_error_case, (name, steps[-1])
        header = _case_header(name)
        if not failed:
            assert len(steps) == len(header["events"]) + 1, name


# -- the same source through the simulate_machine tool ----------------------------------------

SIMULATE_FIELDS = ("value", "context", "status", "tags", "output", "actions")
#: simulate_machine differs on these beyond KNOWN_DIFFERENCES.
SIMULATE_DIFFERENCES: dict[str, str] = {
    "module_state_changed_by_the_initial_entry": (
        "simulate_machine runs the machine as one running actor, whose initial snapshot is computed once, so the "
        "module state is changed once (XState's createActor gives n = 1 then 1, as simulate does); XState's pure "
        "transition makes a new actor, and computes the initial snapshot again, per call"),
}


def _simulate_param(name: str) -> Any:
    reason = SIMULATE_DIFFERENCES.get(name) or KNOWN_DIFFERENCES.get(name)
    marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
    return pytest.param(name, id=name, marks=marks)


@pytest.mark.parametrize("name", [_simulate_param(name) for name in SIMULATED_NAMES])
def test_simulate_machine_on_the_source_matches_xstate(
    name: str, xstate_traces: dict[str, list[dict[str, Any]]]
) -> None:
    """`simulate_machine` given the XState source text: every step as XState has it; where XState
    throws, the simulation ends with an error step for that event."""
    source = _source(name)
    header = _case_header(name)
    arguments: dict[str, Any] = {"machine": source, "events": header.get("events", [])}
    if "input" in header:
        arguments["input"] = header["input"]
    expected = xstate_traces[name]
    try:
        result = tools.call("simulate_machine", arguments)
    except ToolError as error:
        # The tool refuses a machine XState refuses when it starts (invalid config): both say so.
        assert "error" in expected[0] and error.code == "invalid_input", (error, expected[0])
        return
    steps = _named_sessions(result["steps"])
    expected = _named_sessions(expected)
    assumed = result.get("normalization", {}).get("assumedGuards", [])
    if assumed and any("is not implemented" in str(step.get("error", "")) for step in expected):
        # XState throws for an unimplemented guard; the tool assumes it passes and says so in
        # `normalization.assumedGuards` (its documented behaviour, not a silent difference).
        missing = {match for step in expected
                   for match in re.findall(r"Guard '([^']+)' is not implemented", str(step.get("error", "")))}
        assert missing <= set(assumed), (missing, assumed)
        return
    lines: list[str] = []
    for index, want in enumerate(expected):
        if index >= len(steps):
            lines.append(f"step {index}: XState has this step, the simulation stopped before it")
            continue
        got = steps[index]
        if "error" in want:
            if got.get("status") != "error" or got["event"]["type"] != want["event"]["type"]:
                lines.append(f"step {index}: XState threw {want['error']!r}, the simulation gave {got.get('status')!r}")
            continue
        output = want["output"] if want["status"] == "done" else None  # the tool shows output once done
        expected_step = {**{field: want[field] for field in SIMULATE_FIELDS}, "output": output}
        lines.extend(
            f"step {index}: {field}: XState {_canonical(expected_step[field])} | simulate {_canonical(got.get(field))}"
            for field in SIMULATE_FIELDS
            if _canonical(expected_step[field]) != _canonical(got.get(field))
        )
    if len(steps) > len(expected):
        lines.append(f"the simulation has {len(steps)} steps, XState {len(expected)}")
    if lines:
        pytest.fail("\n".join([f"simulate_machine on {name!r} differs from XState:", *lines]), pytrace=False)
