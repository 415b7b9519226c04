"""One live machine as a JSON record, stepped by the pure engine on a virtual clock.

A record holds everything a later call, in this process or another, needs to go on: the
machine as it was given, its input and static guard results, the persisted snapshot
(`Snapshot.to_json`), the virtual clock and the pending delayed events. Nothing else is
kept between calls, so a record is the whole truth and the store's compare-and-set on it
makes each call atomic.

The functions at the end (`start_machine`, `send_events`, `read_machine`) are the whole engine
work of a call as JSON in, JSON out: the service hands them to its `compute` hook, which may
run them in this process or in a worker process (their arguments and results pickle: JSON-like
values and the loader, a module-level function pickled by reference). Each works on its own
copy of the record it is given and returns the new one; nothing else is changed.

Delayed events are what XState's scheduler would hold: a `raise` with a delay (which is how
`after` transitions are built) schedules its event under its id (or its type), `cancel`
drops it, and a machine that stops running (done, error) drops them all. Advancing the
clock fires the due ones in time order, ties in the order they were scheduled, each as a
step, so a timer scheduled by a timer fires in the same advance if it falls due in time.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from statekit.analysis.paths import EventEnumerator
from statekit.analysis.simulate import step_record
from statekit.budget import charge_output
from statekit.engine.actions import ExecutableAction
from statekit.engine.api import initial_transition, restore_snapshot, transition
from statekit.engine.machine import Machine
from statekit.engine.scheduler import PendingTimer, apply_scheduler_actions, next_due, without_fired
from statekit.engine.snapshot import Snapshot
from statekit.errors import EngineError, MachineDefinitionError, ToolError

#: Events one `send_events` call may carry.
MAX_EVENTS = 100
#: Delayed events one call may fire while advancing the clock (a timer that re-arms itself
#: with a zero delay would otherwise never let the call end).
MAX_TIMER_STEPS = 1000
#: The longest `advanceMs` one call may ask for: 366 days.
MAX_ADVANCE_MS = 366 * 24 * 3600 * 1000
RECORD_VERSION = 1

LiveRecord = dict[str, Any]
#: `loader(machine, guards)` -> (machine, normalization): builds the runnable machine for a
#: stored definition (the tools layer reads every format; this package only steps). A
#: module-level function, so it pickles by reference into a worker process.
MachineLoader = Callable[[Any, Mapping[str, bool] | None], tuple[Machine, dict[str, Any]]]


@dataclass
class Stepped:
    """What a call did: the steps taken, the snapshot reached, and why it stopped early."""

    steps: list[dict[str, Any]]
    snapshot: Snapshot
    stopped: str | None = None


def snapshot_json(snapshot: Snapshot) -> dict[str, Any]:
    """`{value, context, status, tags, output}`, as in simulate_machine's steps."""
    data: dict[str, Any] = {
        "value": copy.deepcopy(snapshot.value),
        "context": copy.deepcopy(snapshot.context),
        "status": snapshot.status,
        "tags": sorted(snapshot.tags),
        "output": copy.deepcopy(snapshot.output) if snapshot.status == "done" else None,
    }
    if snapshot.status == "error" and snapshot.error is not None:
        data["error"] = str(snapshot.error)
    return data


def _schedule(record: LiveRecord, snapshot: Snapshot, actions: Sequence[ExecutableAction]) -> None:
    """Apply the step's delayed raises and cancels to the record's timers (XState's scheduler
    rules, `statekit.engine.scheduler`); an actor that is no longer active keeps none."""
    if snapshot.status != "active":
        record["timers"] = []
        return
    clock_ms = record["clockMs"]
    timers, record["timerSeq"] = apply_scheduler_actions(
        _pending(record), actions, lambda delay: clock_ms + max(delay, 0), record["timerSeq"])
    _store(record, timers)


def _pending(record: LiveRecord) -> list[PendingTimer]:
    return [PendingTimer(timer["key"], timer["event"], timer["dueMs"], timer["seq"], timer.get("named", True))
            for timer in record["timers"]]


def _store(record: LiveRecord, timers: Sequence[PendingTimer]) -> None:
    record["timers"] = [{"key": timer.send_id, "dueMs": timer.due, "seq": timer.sequence, "event": dict(timer.event),
                         **({} if timer.named else {"named": False})} for timer in timers]


def _charged(step: dict[str, Any]) -> dict[str, Any]:
    """Count a step toward the call's output limit as it is made (a call that will be too large
    stops at the step that crosses the limit, before the rest is computed)."""
    charge_output(len(json.dumps(step, ensure_ascii=False, default=str)))
    return step


def _step(machine: Machine, record: LiveRecord, snapshot: Snapshot, event: Mapping[str, Any],
          steps: list[dict[str, Any]]) -> tuple[Snapshot, str | None]:
    if snapshot.status != "active":
        # A running actor that is done (or failed) ignores events, as XState's actors do.
        steps.append(_charged({**step_record(event, snapshot, []), "atMs": record["clockMs"]}))
        return snapshot, None
    try:
        next_snapshot, actions = transition(machine, snapshot, event)
    except EngineError as error:
        errored = snapshot.clone(status="error", error=error.describe())
        steps.append(_charged({**step_record(event, errored, []), "atMs": record["clockMs"]}))
        record["timers"] = []
        return errored, f"the machine threw on event '{event['type']}': {error.describe()}"
    steps.append(_charged({**step_record(event, next_snapshot, [a.type for a in actions]), "atMs": record["clockMs"]}))
    _schedule(record, next_snapshot, actions)
    return next_snapshot, None


def start_record(machine: Machine, definition: Mapping[str, Any]) -> tuple[LiveRecord, Snapshot, list[str]]:
    """A new record for `definition` (`machine`, `input`, `guards`, `ttlSeconds`) at clock 0."""
    snapshot, actions = initial_transition(machine, definition.get("input"))
    record: LiveRecord = {"recordVersion": RECORD_VERSION, **definition,
                          "clockMs": 0, "timers": [], "timerSeq": 0}
    _schedule(record, snapshot, actions)
    record["snapshot"] = snapshot.to_json()
    return record, snapshot, [action.type for action in actions]


def restore(machine: Machine, record: LiveRecord) -> Snapshot:
    """The record's snapshot on `machine`; a record that no longer fits it is `invalid_input`."""
    try:
        return restore_snapshot(machine, record["snapshot"])
    except (MachineDefinitionError, KeyError, TypeError) as error:
        raise ToolError("invalid_input", f"the stored snapshot no longer fits its machine: {error}") from None


def send(machine: Machine, record: LiveRecord, events: Sequence[Mapping[str, Any]],
         advance_ms: float = 0) -> Stepped:
    """Process `events` in order, then move the clock by `advance_ms`; updates `record`."""
    snapshot = restore(machine, record)
    steps: list[dict[str, Any]] = []
    stopped: str | None = None
    for event in events:
        snapshot, stopped = _step(machine, record, snapshot, event, steps)
        if stopped is not None:
            break
    if stopped is None and advance_ms:
        target = record["clockMs"] + advance_ms
        fired = 0
        while (timer := next_due(_pending(record))) is not None:
            if timer.due > target:
                break
            if fired >= MAX_TIMER_STEPS:
                stopped = (f"fired {MAX_TIMER_STEPS} delayed events in one call; the clock stopped at "
                           f"{record['clockMs']} ms (call again to go on)")
                target = record["clockMs"]
                break
            _store(record, without_fired(_pending(record), timer))
            record["clockMs"] = timer.due
            fired += 1
            snapshot, stopped = _step(machine, record, snapshot, timer.event, steps)
            if stopped is not None:
                target = record["clockMs"]
                break
        record["clockMs"] = target
    record["snapshot"] = snapshot.to_json()
    return Stepped(steps, snapshot, stopped)


def pending_timers(record: LiveRecord) -> list[dict[str, Any]]:
    """The delayed events waiting on the clock, soonest first."""
    ordered = sorted(record["timers"], key=lambda item: (item["dueMs"], item["seq"]))
    return [{"id": timer["key"], "event": copy.deepcopy(timer["event"]), "atMs": timer["dueMs"],
             "dueInMs": timer["dueMs"] - record["clockMs"]} for timer in ordered]


def enabled_events(snapshot: Snapshot) -> list[str]:
    """Event types the machine would take a transition on now (XState's `snapshot.can`).

    Each of the active nodes' own event descriptors is tried as a bare event, with the
    guards as the machine was built: supplied, run in the sandbox, or assumed. Wildcard
    descriptors name no event one could send, and `xstate.after.*` events belong to the
    clock (`pendingTimers`).
    """
    if snapshot.status != "active":
        return []
    enabled: list[str] = []
    for descriptor in EventEnumerator().descriptors(snapshot):
        if descriptor.endswith("*") or descriptor.startswith("xstate.after."):
            continue
        try:
            can = snapshot.can({"type": descriptor})
        except EngineError:
            can = True  # a guard throws: sending it changes the machine (into an error)
        if can:
            enabled.append(descriptor)
    return enabled


# -- the engine work of one call, JSON in and JSON out (what the service's `compute` runs) ----


def start_machine(loader: MachineLoader, definition: Mapping[str, Any]) -> dict[str, Any]:
    """A new machine for `definition` (`machine`, `input`, `guards`, `ttlSeconds`):
    `{record, snapshot, actions, normalization}`."""
    machine, normalization = loader(definition["machine"], definition.get("guards"))
    record, snapshot, actions = start_record(machine, definition)
    return {"record": record, "snapshot": snapshot_json(snapshot), "actions": actions,
            "normalization": normalization}


def send_events(loader: MachineLoader, record: LiveRecord, events: Sequence[Mapping[str, Any]],
                advance_ms: float) -> dict[str, Any]:
    """`record` after `events` (normalized: `{type, ...}`) and `advance_ms` of clock:
    `{record, steps, snapshot, stopped}`."""
    machine, _normalization = loader(record["machine"], record.get("guards"))
    moved = dict(record)  # top-level copy: every change below replaces a top-level key
    stepped = send(machine, moved, events, advance_ms)
    return {"record": moved, "steps": stepped.steps, "snapshot": snapshot_json(stepped.snapshot),
            "stopped": stepped.stopped}


def read_machine(loader: MachineLoader, record: LiveRecord) -> dict[str, Any]:
    """What `get_machine_snapshot` shows of `record`: `{snapshot, enabledEvents, normalization}`."""
    machine, normalization = loader(record["machine"], record.get("guards"))
    snapshot = restore(machine, record)
    return {"snapshot": snapshot_json(snapshot), "enabledEvents": enabled_events(snapshot),
            "normalization": normalization}
