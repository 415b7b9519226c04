"""statekit's `Actor` and its `VirtualClock` against real XState actors, timer by timer.

`tests/oracle/live_clock.mjs` runs each case as an XState actor on a clock that keeps real
time's order (each timer at its due time, in due order; statekit's `VirtualClock` does the
same) and reports the snapshot after every sent event and every snapshot its observers saw
while the clock advanced. This module drives `statekit.Actor` through the same script and
compares item by item. The cases: the live machines' own (tests/oracle/live_cases.json), and
tests/oracle/scheduler_cases.json, which pins XState's scheduler where a map of timers
by id would go wrong (an id scheduled twice, a raise without an id, cancelling an `after`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from node_oracle import live_clock_runs, live_clock_shape, oracle_cases, oracle_module
from statekit import Actor

CASES = oracle_cases("live_cases.json", "scheduler_cases.json")


IMPLEMENTATIONS = oracle_module("implementations.py")


@pytest.fixture(scope="module")
def xstate_runs() -> dict[str, Any]:
    return live_clock_runs(CASES)


def run_actor(case: Mapping[str, Any]) -> dict[str, Any]:
    """The case through `statekit.Actor`, shaped as live_clock.mjs reports XState's actor."""
    config = case["config"]
    config = config["machine"] if "machine" in config and "states" not in config else config
    machine = IMPLEMENTATIONS.setup_for_case(case.get("guards") or None).create_machine(config, max_iterations=10_000)
    actor = Actor(machine, input=case.get("input"))
    seen: list[dict[str, Any]] = []
    actor.subscribe(lambda snapshot: seen.append(live_clock_shape(snapshot)))
    actor.start()
    start = live_clock_shape(actor.get_snapshot())
    items = []
    for item in case["script"]:
        events = []
        for event in item.get("events", []):
            actor.send(event)
            events.append(live_clock_shape(actor.get_snapshot()))
        seen.clear()
        if item.get("advanceMs"):
            actor.clock.advance(item["advanceMs"])
        items.append({"events": events, "timers": list(seen)})
    return {"start": start, "items": items}


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_actor_matches_xstate_actor(case: Mapping[str, Any], xstate_runs: Mapping[str, Any]) -> None:
    expected = xstate_runs[case["name"]]
    actual = run_actor(case)
    assert actual["start"] == expected["start"]
    for index, (mine, theirs) in enumerate(zip(actual["items"], expected["items"], strict=True)):
        assert mine == theirs, f"script item {index} differs"


def test_a_done_actor_keeps_no_timers() -> None:
    """XState's `_stopProcedure` cancels every delayed event of an actor that is done."""
    config = {"initial": "a", "states": {
        "a": {"after": {"1000": "a"}, "on": {
            "ARM": {"actions": [{"type": "xstate.raise", "event": {"type": "LATER"}, "delay": 50, "id": "t"},
                                {"type": "xstate.raise", "event": {"type": "LATER"}, "delay": 70}]},
            "END": "end"}},
        "end": {"type": "final"}}}
    actor = Actor(IMPLEMENTATIONS.setup_for_case().create_machine(config)).start()
    actor.send("ARM")
    assert [due for due, _ in actor.clock.pending()] == [50, 70, 1000]
    actor.send("END")
    assert actor.get_snapshot().status == "done"
    assert actor.clock.pending() == []
