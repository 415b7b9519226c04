"""Shrink a case on which statekit and XState disagree to a small one that still disagrees.

Usage (from the repository root, with `npm ci` done in tests/oracle):

    python tests/oracle/minimize.py random 929        # a generated case, by seed
    python tests/oracle/minimize.py case <name>       # a corpus case, by name
    python tests/oracle/minimize.py file <path.json>  # the first case of a JSON array

It deletes events, state keys and list items one at a time, keeping a deletion whenever
statekit and XState still disagree on the result, until no single deletion keeps the
disagreement. Candidates are judged in batches, one node process per batch. Deleting a guard
can make a machine that never settles, so every candidate runs with a bound on microsteps on
both sides (a candidate that hits it is not kept).
"""

from __future__ import annotations

import copy
import importlib.util
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ORACLE_DIR = Path(__file__).parent
sys.path.insert(0, str(ORACLE_DIR.parent))  # tests/: node_oracle and needs
from node_oracle import oracle_module, run_node  # noqa: E402

ITERATION_BOUND = 200
BATCH_SIZE = 60
#: Keys whose deletion would only make XState refuse the config.
STRUCTURAL_KEYS = frozenset(
    {"type", "initial", "states", "src", "event", "params", "guards", "guard", "if"}
)


def _test_oracle() -> Any:
    """tests/engine/test_oracle.py, whose statekit side and trace report the judge reuses."""
    spec = importlib.util.spec_from_file_location("statekit_oracle_harness", ORACLE_DIR.parent / "engine" / "test_oracle.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _bounded(case: dict[str, Any]) -> dict[str, Any]:
    bounded = copy.deepcopy(case)
    bounded["config"].setdefault("options", {})["maxIterations"] = ITERATION_BOUND
    return bounded


def _xstate_traces(cases: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    results = run_node(ORACLE_DIR / "trace.mjs", stdin=json.dumps([_bounded(case) for case in cases]),
                       packages=[ORACLE_DIR / "node_modules" / "xstate"])
    return [result["steps"] for result in results]


class Judge:
    """Decides whether a candidate still shows the disagreement."""

    def __init__(self) -> None:
        self.harness = _test_oracle()
        self.fields = (*self.harness.STEP_FIELDS, "action_params", "snapshot_error")
        self.target: tuple[bool, ...] | None = None

    def statekit_steps(self, case: dict[str, Any]) -> list[dict[str, Any]]:
        # The same bound as XState gets through options.maxIterations, given as statekit's
        # create_machine argument (the harness's hang guard).
        original = self.harness.HANG_GUARD_ITERATIONS
        try:
            self.harness.HANG_GUARD_ITERATIONS = ITERATION_BOUND
            steps: list[dict[str, Any]] = self.harness.statekit_trace(case)
        finally:
            self.harness.HANG_GUARD_ITERATIONS = original
        return steps

    def signature(
        self, case: dict[str, Any], xstate_steps: list[dict[str, Any]]
    ) -> tuple[bool, ...] | None:
        """None when both agree; else what kind of disagreement it is, so that shrinking keeps
        the same one instead of drifting to an unrelated difference."""
        if any(
            "Infinite loop" in str(step.get("error")) + str(step.get("snapshot_error"))
            for step in xstate_steps
        ):
            return None
        if "error" in xstate_steps[0]:
            return None  # XState refuses the config
        statekit_steps = self.statekit_steps(case)
        report = self.harness._trace_report(
            {**case, "file": "minimize"}, xstate_steps, statekit_steps, self.fields
        )
        if report is None:
            return None
        return (
            any("error" in step for step in xstate_steps),
            any("error" in step for step in statekit_steps),
            xstate_steps[0].get("status") == "error",
            statekit_steps[0].get("status") == "error",
        )

    def disagrees(self, case: dict[str, Any], xstate_steps: list[dict[str, Any]]) -> bool:
        signature = self.signature(case, xstate_steps)
        return signature is not None and (self.target is None or signature == self.target)

    def first_disagreeing(self, candidates: list[dict[str, Any]]) -> dict[str, Any] | None:
        for start in range(0, len(candidates), BATCH_SIZE):
            batch = candidates[start : start + BATCH_SIZE]
            for candidate, steps in zip(batch, _xstate_traces(batch), strict=True):
                if self.disagrees(candidate, steps):
                    return candidate
        return None


def _deletions(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Paths of every dict key and list item that may be deleted, largest first."""
    if isinstance(value, dict):
        for key in value:
            if key not in STRUCTURAL_KEYS:
                yield (*path, key)
        for key, item in value.items():
            yield from _deletions(item, (*path, key))
    elif isinstance(value, list):
        for index in range(len(value)):
            yield (*path, index)
        for index, item in enumerate(value):
            yield from _deletions(item, (*path, index))


def _delete(case: dict[str, Any], path: tuple[Any, ...]) -> dict[str, Any]:
    smaller = copy.deepcopy(case)
    container: Any = smaller
    for step in path[:-1]:
        container = container[step]
    del container[path[-1]]
    return smaller


def _state_deletions(
    config: dict[str, Any], path: tuple[Any, ...] = ("config",)
) -> Iterator[tuple[Any, ...]]:
    """Child states that are not their parent's initial state."""
    states = config.get("states")
    if not isinstance(states, dict):
        return
    for key, child in states.items():
        if key != config.get("initial"):
            yield (*path, "states", key)
        if isinstance(child, dict):
            yield from _state_deletions(child, (*path, "states", key))


def candidates(case: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every case one deletion smaller than `case`."""
    for index in range(len(case["events"])):
        yield _delete(case, ("events", index))
    for path in _state_deletions(case["config"]):
        yield _delete(case, path)
    for path in _deletions(case["config"], ("config",)):
        yield _delete(case, path)


def minimize(case: dict[str, Any], judge: Judge) -> dict[str, Any]:
    """The smallest case reachable by single deletions that still disagrees."""
    current: dict[str, Any] = {
        key: case[key] for key in ("name", "config", "events", "input", "guards") if key in case
    }
    judge.target = judge.signature(current, _xstate_traces([current])[0])
    if judge.target is None:
        raise SystemExit("statekit and XState agree on this case: nothing to minimize")
    while True:
        smaller = judge.first_disagreeing(list(candidates(current)))
        if smaller is None:
            return current
        current = smaller
        print(f"  {len(json.dumps(current))} characters", file=sys.stderr)


def main(arguments: list[str]) -> None:
    kind, which = arguments
    if kind == "random":
        case = oracle_module("random_machines.py").random_case(int(which))
    elif kind == "file":
        case = json.loads(Path(which).read_text())[0]
    else:
        cases = [
            c
            for path in sorted((ORACLE_DIR / "cases").glob("*.json"))
            for c in json.loads(path.read_text())
        ]
        case = next(c for c in cases if c["name"] == which)
    judge = Judge()
    smallest = minimize(case, judge)
    print(json.dumps(smallest, indent=2))
    steps = _xstate_traces([smallest])[0]
    report = judge.harness._trace_report(
        {**smallest, "file": "minimize"}, steps, judge.statekit_steps(smallest), judge.fields
    )
    print(report)


if __name__ == "__main__":
    main(sys.argv[1:])
