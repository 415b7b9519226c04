"""The gate's stored timers against real XState actors, on the scheduler's hard cases.

A gated workflow keeps its pending `after` and delayed-raise timers in its record and fires
them when the workflow is next read (`statekit.gate.timers`). This module drives those
functions through each case of tests/oracle/scheduler_cases.json (an id scheduled twice, a
raise without an id, cancelling an `after`, re-arming) and compares every snapshot with what
`tests/oracle/live_clock.mjs` reports of an XState actor on a clock in real time's order: the
snapshot after each event, the state each fired timer led to, and the snapshot the clock
stopped at.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest

from node_oracle import live_clock_runs, live_clock_shape, oracle_cases, oracle_module
from statekit.engine import initial_transition, transition
from statekit.gate.record import Timer
from statekit.gate.timers import apply_timer_actions, fire_due

CASES = oracle_cases("scheduler_cases.json")
IMPLEMENTATIONS = oracle_module("implementations.py")


@pytest.fixture(scope="module")
def xstate_runs() -> dict[str, Any]:
    return live_clock_runs(CASES)


def run_gate_timers(case: Mapping[str, Any]) -> dict[str, Any]:
    """The case through the gate's timer functions (epoch seconds; the case's clock starts at 0),
    shaped as live_clock.mjs reports XState, a fired timer by the state it led to."""
    machine = IMPLEMENTATIONS.setup_for_case(case.get("guards") or None).create_machine(case["config"])
    now_ms = 0
    snapshot, actions = initial_transition(machine, case.get("input"))
    timers: tuple[Timer, ...] = apply_timer_actions((), actions, 0.0)
    start = live_clock_shape(snapshot)
    items = []
    for item in case["script"]:
        events = []
        for event in item.get("events", []):
            snapshot, actions = transition(machine, snapshot, event)
            timers = apply_timer_actions(timers, actions, now_ms / 1000.0) if snapshot.status == "active" else ()
            events.append(live_clock_shape(snapshot))
        now_ms += item.get("advanceMs", 0)
        snapshot, timers, fired = fire_due(machine, snapshot, timers, now_ms / 1000.0)
        items.append({"events": events, "fired": [entry.target for entry in fired], "end": live_clock_shape(snapshot)})
    return {"start": start, "items": items}


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_gate_timers_match_xstate_actor(case: Mapping[str, Any], xstate_runs: Mapping[str, Any]) -> None:
    expected = xstate_runs[case["name"]]
    actual = run_gate_timers(case)
    assert actual["start"] == expected["start"]
    for index, (mine, theirs) in enumerate(zip(actual["items"], expected["items"], strict=True)):
        assert mine["events"] == theirs["events"], f"script item {index}: the events differ"
        assert mine["fired"] == [snapshot["value"] for snapshot in theirs["timers"]], f"script item {index}: timers"
        last = theirs["timers"][-1] if theirs["timers"] else (theirs["events"][-1] if theirs["events"] else None)
        if last is not None:
            assert mine["end"] == last, f"script item {index}: where the clock stopped"


def test_a_stored_timer_keeps_what_the_scheduler_knows_of_it() -> None:
    """A timer without an id, and one whose id names it no more, come back from the record as
    they were; a record written before `named` existed reads as named."""
    for timer in (Timer(None, {"type": "LATER"}, 12.5, 3), Timer("t", {"type": "T"}, 1.0, 1, named=False),
                  Timer("xstate.after.100.m.a", {"type": "xstate.after.100.m.a"}, 0.1, 2)):
        assert Timer.from_json(json.loads(json.dumps(timer.to_json()))) == timer
    assert Timer.from_json({"id": "t", "event": {"type": "T"}, "dueAt": 1.0, "seq": 1}).named is True
