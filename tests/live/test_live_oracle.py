"""Live machines against real XState actors whose clock keeps real time's order.

`tests/oracle/live_clock.mjs` starts each case's machine as an XState actor, sends the
script's events and advances its clock; this module does the same through
`statekit.live.LiveMachines` (start, then `send` with `advance_ms`) and compares, item by
item, the snapshot after every sent event and every snapshot a delayed event produced.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from node_oracle import live_clock_runs, oracle_cases, oracle_module
from statekit.gate.store import MemoryStore
from statekit.live import LiveMachines

#: The live machines' cases, and the scheduler's (an id scheduled twice, a raise without an id,
#: cancelling an `after`), where a map of timers by id would go wrong.
CASES = oracle_cases("live_cases.json", "scheduler_cases.json")


IMPLEMENTATIONS = oracle_module("implementations.py")


@pytest.fixture(scope="module")
def xstate_runs() -> dict[str, Any]:
    return live_clock_runs(CASES)


def _loader(machine: Any, guards: Mapping[str, bool] | None) -> Any:
    setup = IMPLEMENTATIONS.setup_for_case(guards or None)
    return setup.create_machine(machine, max_iterations=10_000), {}


def _shape(snapshot: Mapping[str, Any]) -> dict[str, Any]:
    return {"value": snapshot["value"], "context": snapshot["context"], "status": snapshot["status"]}


def run_live(case: Mapping[str, Any]) -> dict[str, Any]:
    """The case through statekit's live machines, shaped as live_clock.mjs reports XState."""
    live = LiveMachines(MemoryStore(), _loader)
    started = live.start(case["config"], input_value=case.get("input"), guards=case.get("guards"))
    handle = started["machineHandle"]
    items = []
    for item in case["script"]:
        events = item.get("events", [])
        sent = live.send(handle, events, 0) if events else {"steps": []}
        advanced = live.send(handle, [], item.get("advanceMs", 0)) if item.get("advanceMs") else {"steps": []}
        items.append({"events": [_shape(step) for step in sent["steps"]],
                      "timers": [_shape(step) for step in advanced["steps"]]})
    return {"start": _shape(started["snapshot"]), "items": items}


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_live_machine_matches_xstate_actor(case: Mapping[str, Any], xstate_runs: Mapping[str, Any]) -> None:
    expected = xstate_runs[case["name"]]
    actual = run_live(case)
    assert actual["start"] == expected["start"]
    for index, (mine, theirs) in enumerate(zip(actual["items"], expected["items"], strict=True)):
        assert mine == theirs, f"script item {index} differs"


def test_events_and_advance_in_one_call_equal_two_calls() -> None:
    """`send(events, advanceMs)` is the events, then the clock: the same as two calls."""
    case = next(c for c in CASES if c["name"] == "events_between_advances_with_context")
    one = LiveMachines(MemoryStore(), _loader)
    handle = one.start(case["config"])["machineHandle"]
    together = [one.send(handle, item.get("events", []), item.get("advanceMs", 0))["steps"] for item in case["script"]]
    split = run_live(case)["items"]
    assert [[_shape(step) for step in steps] for steps in together] == [item["events"] + item["timers"] for item in split]
