"""The plan shortcuts equal XState's set algorithms, on every microstep of real runs.

`plan.build_plan` takes shorter roads than `general_plan` (XState's `removeConflictingTransitions`,
`computeExitSet` and `computeEntrySet`): per-transition entry templates, exit parts cached per
(transition, active nodes below its domain) and reused in other configurations, and several
transitions with unrelated domains combined. The oracle compares what comes out at the end;
this checks the plans themselves: every plan built while running the oracle corpus, the
generated machines and the benchmark's wide random walk must equal the general one.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import statekit
from statekit.engine import algorithm, plan
from statekit.engine.snapshot import state_value_of

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_oracle import CASES, RANDOM_CASES, statekit_trace

BENCH_MACHINES = Path(__file__).resolve().parents[2] / "bench" / "machines"
#: The fields a shortcut must reproduce (`value_root` and `part_is_proper` are shortcut-only hints).
PLAN_FIELDS = ("filtered", "exits", "history_updates", "entries", "next_nodes", "same_nodes")


class PlanChecker:
    """Stands in for `build_plan`: builds the plan both ways and records every difference."""

    def __init__(self) -> None:
        self.built = 0
        self.differences: list[str] = []

    def __call__(self, transitions: list[Any], nodes: tuple[Any, ...], history: Any, is_initial: bool) -> Any:
        fast = plan.build_plan(transitions, nodes, history, is_initial)
        general = plan.general_plan(transitions, nodes, history, is_initial)
        self.built += 1
        for field in PLAN_FIELDS:
            if getattr(fast, field) != getattr(general, field):
                self.differences.append(
                    f"{transitions} in {[n.id for n in nodes]}: {field} {getattr(fast, field)!r} "
                    f"!= {getattr(general, field)!r}")
        return fast


@pytest.fixture
def checker(monkeypatch: pytest.MonkeyPatch) -> Iterator[PlanChecker]:
    check = PlanChecker()
    monkeypatch.setattr(algorithm, "build_plan", check)
    yield check


def test_corpus_plans_equal_the_general_algorithm(checker: PlanChecker) -> None:
    for case in [*CASES, *RANDOM_CASES.values()]:
        statekit_trace(case)
    assert checker.built > 1000
    assert checker.differences == []


def _wide_walk(count: int) -> tuple[dict[str, Any], list[str]]:
    sys.path.insert(0, str(BENCH_MACHINES))
    import wide

    return wide.config(), wide.walk(count)


def _check_derived(snapshot: Any) -> None:
    """What a snapshot derived from its predecessor (properness, the state value) is what
    reading its node list afresh gives."""
    fresh_value, fresh_proper = state_value_of(snapshot.machine, snapshot.nodes)
    if snapshot._proper is not None:
        assert snapshot._proper == fresh_proper
    assert snapshot.value == fresh_value
    assert list(snapshot.value) == list(fresh_value) if isinstance(fresh_value, dict) else True


def test_wide_walk_plans_equal_the_general_algorithm(checker: PlanChecker) -> None:
    config, events = _wide_walk(6000)
    machine = statekit.create_machine(config)
    snapshot, _ = statekit.initial_transition(machine)
    for index, event_type in enumerate(events):
        previous = snapshot
        if index % 3 == 0:
            previous.value  # noqa: B018 (read it, so the next value can be derived from it)
        snapshot, _ = statekit.transition(machine, snapshot, {"type": event_type})
        _check_derived(snapshot)
    assert machine.local_parts, "the walk took no single-transition shortcut"
    assert checker.built > 3000
    assert checker.differences == []


def test_player_plans_equal_the_general_algorithm(checker: PlanChecker) -> None:
    spec = json.loads((BENCH_MACHINES / "player.json").read_text())
    machine = statekit.create_machine(spec["config"])
    snapshot, _ = statekit.initial_transition(machine)
    for _ in range(3):
        for event_type in spec["cycle"]:
            snapshot, _ = statekit.transition(machine, snapshot, {"type": event_type})
            machine.plans.clear()  # build every plan again, so the cached parts are reused
    assert checker.differences == []
