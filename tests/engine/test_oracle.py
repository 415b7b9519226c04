"""Differential tests: statekit against real XState, step by step.

`tests/oracle/trace.mjs` runs cases through `xstate@5.33.3` (its development build) in one node
process; this module runs the same cases through statekit's pure API with the same named
implementations (`tests/oracle/implementations.py`) and compares the traces. XState is the
reference: a difference is a statekit bug. The tests:

- `test_case_matches_xstate`: every corpus case (`tests/oracle/cases/*.json`), on value,
  context, status, tags, output, action types and children ids;
- `test_action_params_match_xstate`: the actions' params, where the action types agree;
- `test_error_messages_match_xstate`: thrown errors and `snapshot.error`, for error cases;
- `test_random_case_matches_xstate`: generated machines (`tests/oracle/random_machines.py`),
  on every field at once;
- checks of the corpus and the generator themselves.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

import statekit
from node_oracle import oracle_module, run_node

ORACLE_DIR = Path(__file__).resolve().parents[1] / "oracle"
CASE_FILES = sorted((ORACLE_DIR / "cases").glob("*.json"))
#: The fields of a step that must match XState exactly.
STEP_FIELDS = ("value", "context", "status", "tags", "output", "actions", "children")
#: Words that mark a case as being about an error (XState may throw or report one).
ERROR_CASE_MARKERS = ("error", "throws")
#: A bound on microsteps per macrostep for statekit when the config sets none, so that an
#: engine bug that loops forever fails a case instead of hanging the suite. No case needs
#: more than a few dozen microsteps.
HANG_GUARD_ITERATIONS = 10_000


def _load_cases() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = []
    for path in CASE_FILES:
        for case in json.loads(path.read_text(encoding="utf-8")):
            cases.append({**case, "file": path.name})
    return cases


CASES = _load_cases()
CASES_BY_NAME = {case["name"]: case for case in CASES}


IMPLEMENTATIONS = oracle_module("implementations.py")
RANDOM_MACHINES = oracle_module("random_machines.py")
STEPS = oracle_module("steps.py")
#: Seeds of the generated cases; each seed is one reproducible machine and event sequence.
RANDOM_SEEDS = range(1000)
RANDOM_CASES = {
    f"random_{seed}": {**RANDOM_MACHINES.random_case(seed), "file": "random_machines.py"}
    for seed in RANDOM_SEEDS
}


def _run_trace(arguments: list[str], stdin: str | None = None) -> dict[str, list[dict[str, Any]]]:
    """Run trace.mjs on XState's development build; its traces by case name."""
    results = run_node(ORACLE_DIR / "trace.mjs", *arguments, stdin=stdin, packages=[ORACLE_DIR / "node_modules" / "xstate"])
    return {result["name"]: result["steps"] for result in results}


@pytest.fixture(scope="session")
def xstate_traces() -> dict[str, list[dict[str, Any]]]:
    """XState's trace of every corpus case, by case name, from one node run."""
    return _run_trace([str(path) for path in CASE_FILES])


@pytest.fixture(scope="session")
def xstate_random_traces() -> dict[str, list[dict[str, Any]]]:
    """XState's trace of every generated case, from one node run (cases on stdin)."""
    return _run_trace([], stdin=json.dumps(list(RANDOM_CASES.values())))


# -- statekit's side ----------------------------------------------------------------------


def _error_message(error: Exception) -> str:
    return str(error) or type(error).__name__


def _configured_max_iterations(config: Any) -> Any:
    """`options.maxIterations` of a config (or of a `{"machine": config}` document)."""
    if isinstance(config, Mapping) and "machine" in config and "states" not in config:
        config = config["machine"]
    options = config.get("options") if isinstance(config, Mapping) else None
    return options.get("maxIterations") if isinstance(options, Mapping) else None


def _create_machine(case: Mapping[str, Any]) -> Any:
    setup = IMPLEMENTATIONS.setup_for_case(case.get("guards"))
    configured = _configured_max_iterations(case["config"])
    if configured is None:
        return setup.create_machine(case["config"], max_iterations=HANG_GUARD_ITERATIONS)
    # The config's own bound must be honoured; running without it could loop forever.
    machine = setup.create_machine(case["config"])
    if getattr(machine, "max_iterations", None) != configured:
        raise AssertionError(
            f"statekit ignored the config's options.maxIterations ({configured}); not running the case"
        )
    return machine


def statekit_trace(case: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The same trace as trace.mjs's `runCase`, produced by statekit."""
    init_event = {"type": "xstate.init"}
    steps: list[dict[str, Any]] = []
    try:
        machine = _create_machine(case)
        snapshot, actions = statekit.initial_transition(machine, input=case.get("input"))
        steps.append(STEPS.describe_step(init_event, snapshot, actions))
    except Exception as error:  # the trace records any failure, as trace.mjs does
        steps.append({"event": init_event, "error": _error_message(error)})
        return steps
    for event in case.get("events", []):
        try:
            snapshot, actions = statekit.transition(machine, snapshot, dict(event))
            steps.append(STEPS.describe_step(event, snapshot, actions))
        except Exception as error:
            steps.append({"event": event, "error": _error_message(error)})
            break
    return steps


# -- comparison ---------------------------------------------------------------------------


def _canonical(value: Any) -> str:
    # Compares as JSON does: `true` is not `1`, key order does not matter.
    return json.dumps(STEPS.plain(value), sort_keys=True)


#: Fields holding an error message, where statekit may say more than XState.
MESSAGE_FIELDS = frozenset({"error", "snapshot_error"})


def _same(field: str, expected: Any, actual: Any) -> bool:
    """Whether statekit's `actual` matches XState's `expected` for `field`.

    Messages match when statekit's starts with XState's words: statekit may add where the
    error happened (a state or action), as its errors must say.
    """
    if field in MESSAGE_FIELDS and isinstance(expected, str) and isinstance(actual, str):
        return actual.startswith(expected)
    return _canonical(expected) == _canonical(actual)


def _show(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _step_differences(
    expected: Mapping[str, Any], actual: Mapping[str, Any], fields: tuple[str, ...]
) -> list[str]:
    if "error" in expected or "error" in actual:
        if "error" in expected and "error" in actual:
            return []  # both refused the step; the wording is not compared
        if "error" in expected:
            return [
                f"XState threw {expected['error']!r}, statekit did not: {_show({k: actual.get(k) for k in fields})}"
            ]
        return [
            f"statekit threw {actual['error']!r}, XState did not: {_show({k: expected.get(k) for k in fields})}"
        ]
    return [
        f"{field}: XState {_show(expected.get(field))} | statekit {_show(actual.get(field))}"
        for field in fields
        if not _same(field, expected.get(field), actual.get(field))
    ]


def _trace_report(
    case: Mapping[str, Any],
    expected: list[dict[str, Any]],
    actual: list[dict[str, Any]],
    fields: tuple[str, ...],
) -> str | None:
    """None when the traces agree on `fields`, else a readable report of every difference."""
    lines: list[str] = []
    for index in range(max(len(expected), len(actual))):
        event_type = (expected[index] if index < len(expected) else actual[index])["event"]["type"]
        where = f"step {index} ({event_type})"
        if index >= len(expected):
            lines.append(f"{where}: statekit has this step, XState stopped before it")
            continue
        if index >= len(actual):
            lines.append(f"{where}: XState has this step, statekit stopped before it")
            continue
        lines.extend(
            f"{where}: {difference}"
            for difference in _step_differences(expected[index], actual[index], fields)
        )
    if not lines:
        return None
    header = f"case {case['name']!r} ({case['file']}) differs from XState:"
    return "\n".join([header, *("  " + line for line in lines)])


def _case_param(case: Mapping[str, Any]) -> Any:
    return pytest.param(case["name"], id=case["name"])


@pytest.mark.parametrize("name", [_case_param(case) for case in CASES])
def test_case_matches_xstate(name: str, xstate_traces: dict[str, list[dict[str, Any]]]) -> None:
    case = CASES_BY_NAME[name]
    report = _trace_report(case, xstate_traces[name], statekit_trace(case), STEP_FIELDS)
    if report is not None:
        pytest.fail(report, pytrace=False)


@pytest.mark.parametrize("name", [_case_param(case) for case in CASES])
def test_action_params_match_xstate(
    name: str, xstate_traces: dict[str, list[dict[str, Any]]]
) -> None:
    """Action params, on the steps where both engines report the same action types."""
    case = CASES_BY_NAME[name]
    expected = xstate_traces[name]
    actual = statekit_trace(case)
    comparable = [
        (expected_step, actual_step)
        for expected_step, actual_step in zip(expected, actual, strict=False)
        if "actions" in expected_step
        and "actions" in actual_step
        and expected_step["actions"] == actual_step["actions"]
    ]
    report = _trace_report(
        case,
        [expected_step for expected_step, _ in comparable],
        [actual_step for _, actual_step in comparable],
        ("action_params",),
    )
    if report is not None:
        pytest.fail(report, pytrace=False)


@pytest.mark.parametrize("name", list(RANDOM_CASES))
def test_random_case_matches_xstate(
    name: str, xstate_random_traces: dict[str, list[dict[str, Any]]]
) -> None:
    """A generated machine (see random_machines.py); `python tests/oracle/random_machines.py N` prints it."""
    case = RANDOM_CASES[name]
    fields = (*STEP_FIELDS, "action_params", "snapshot_error")
    report = _trace_report(case, xstate_random_traces[name], statekit_trace(case), fields)
    if report is not None:
        pytest.fail(report, pytrace=False)


def test_random_cases_run_cleanly_in_xstate(
    xstate_random_traces: dict[str, list[dict[str, Any]]],
) -> None:
    """The generator writes valid configs: XState accepts every one of them (a later step may
    still throw, e.g. `sendTo` a child that is not there, and statekit must then throw too)."""
    assert set(xstate_random_traces) == set(RANDOM_CASES)
    refused = [name for name, steps in xstate_random_traces.items() if "error" in steps[0]]
    assert refused == []
    settled = [name for name, steps in xstate_random_traces.items() if len(steps) > 1]
    assert len(settled) == len(RANDOM_CASES)


def _has_errors(case: Mapping[str, Any]) -> bool:
    return any(marker in case["name"] for marker in ERROR_CASE_MARKERS)


@pytest.mark.parametrize("name", [_case_param(case) for case in CASES if _has_errors(case)])
def test_error_messages_match_xstate(
    name: str, xstate_traces: dict[str, list[dict[str, Any]]]
) -> None:
    """statekit words its errors like XState: thrown errors and `snapshot.error` of status 'error'."""
    case = CASES_BY_NAME[name]
    expected = xstate_traces[name]
    actual = statekit_trace(case)
    lines = []
    for index, (expected_step, actual_step) in enumerate(zip(expected, actual, strict=False)):
        for field in ("error", "snapshot_error"):
            if not _same(field, expected_step.get(field), actual_step.get(field)):
                lines.append(
                    f"step {index} ({expected_step['event']['type']}) {field}:\n"
                    f"    XState   {_show(expected_step.get(field))}\n    statekit {_show(actual_step.get(field))}"
                )
    if lines:
        pytest.fail("\n".join([f"case {name!r} ({case['file']}):", *lines]), pytrace=False)


# -- the corpus itself --------------------------------------------------------------------


def test_corpus_names_are_unique() -> None:
    names = [case["name"] for case in CASES]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    assert duplicates == []


def test_corpus_cases_are_well_formed() -> None:
    allowed = {"name", "config", "events", "input", "guards", "file"}
    problems = [
        case["name"]
        for case in CASES
        if set(case) - allowed
        or not isinstance(case.get("config"), dict)
        or not all(
            isinstance(event, dict) and isinstance(event.get("type"), str)
            for event in case["events"]
        )
        or not all(isinstance(value, bool) for value in case.get("guards", {}).values())
    ]
    assert problems == []
    assert len(CASES) >= 170


def test_xstate_runs_every_case_not_about_errors_cleanly(
    xstate_traces: dict[str, list[dict[str, Any]]],
) -> None:
    """A case that is not about an error must not be one by accident (a config typo)."""
    assert set(xstate_traces) == set(CASES_BY_NAME)
    accidental = [
        name
        for name, steps in xstate_traces.items()
        if not any(marker in name for marker in ERROR_CASE_MARKERS)
        and any("error" in step or step.get("status") == "error" for step in steps)
    ]
    assert accidental == []
    assert all(
        len(steps) == 1 + len(CASES_BY_NAME[name]["events"])
        for name, steps in xstate_traces.items()
        if not any("error" in step for step in steps)
    )


def test_implementations_are_mirrored() -> None:
    """implementations.py and implementations.mjs define the same names."""
    source = (ORACLE_DIR / "implementations.mjs").read_text(encoding="utf-8")
    for table in (
        IMPLEMENTATIONS.GUARDS,
        IMPLEMENTATIONS.ACTIONS,
        IMPLEMENTATIONS.DELAYS,
        IMPLEMENTATIONS.ACTORS,
    ):
        for name in table:
            assert f"  {name}: " in source, f"{name} is missing from implementations.mjs"
    js_names = {
        line.strip().split(":")[0]
        for line in source.splitlines()
        if line.startswith("  ")
        and not line.startswith("   ")
        and ":" in line
        and not line.strip().startswith("//")
    }
    python_names = {
        *IMPLEMENTATIONS.GUARDS,
        *IMPLEMENTATIONS.ACTIONS,
        *IMPLEMENTATIONS.DELAYS,
        *IMPLEMENTATIONS.ACTORS,
    }
    assert js_names == python_names
