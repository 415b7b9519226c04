"""Run a sequence of events through a machine and report every step, as XState would."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from statekit.analysis.implemented import (
    DEFAULT_MAX_MICROSTEPS,
    ImplementedMachine,
    child_actor_names,
    require_implemented,
)
from statekit.budget import charge_output, check_budget, report_progress
from statekit.engine.api import initial_transition, transition
from statekit.engine.evaluation import plain_json
from statekit.engine.machine import Machine
from statekit.engine.snapshot import Snapshot
from statekit.errors import EngineError, ToolError

MAX_EVENTS = 100
__all__ = ["DEFAULT_MAX_MICROSTEPS", "ENGINE_INFO", "MAX_EVENTS", "ImplementedMachine", "build_simulation_machine",
           "child_actor_names", "normalize_events", "simulate", "step_record"]

ENGINE_INFO = {"engine": "statekit", "semantics": "xstate@5", "referenceVersion": "5.33.3"}


def normalize_events(events: Any, allow_wildcard: bool = False) -> list[dict[str, Any]]:
    """`[{type, ...payload} | "TYPE"]` -> event objects; `invalid_input` on anything else.

    An event of type `*` is refused (XState's development build throws for it) unless
    `allow_wildcard`: path finding takes it as XState's production build does.
    """
    if not isinstance(events, list):
        raise ToolError("invalid_input", "`events` must be a list of event objects or event type strings")
    if len(events) > MAX_EVENTS:
        raise ToolError("invalid_input", f"at most {MAX_EVENTS} events per simulation; got {len(events)}")
    result: list[dict[str, Any]] = []
    for index, event in enumerate(events):
        if isinstance(event, str):
            event = {"type": event}
        if not isinstance(event, Mapping) or not isinstance(event.get("type"), str) or not event["type"]:
            raise ToolError("invalid_input", f"events[{index}] must be an event type or an object with a non-empty string `type`")
        if event["type"] == "*" and not allow_wildcard:
            raise ToolError("invalid_input", f"events[{index}]: an event cannot have the wildcard type ('*')")
        result.append(dict(event))
    return result


def build_simulation_machine(machine: ImplementedMachine,
                             guards: Mapping[str, bool] | None = None) -> tuple[Machine, dict[str, Any]]:
    """The machine with its implementations, static guard results and assumed actors, and what
    was assumed (see `ImplementedMachine.build`). A bare model is refused (TypeError): it would
    run without the implementations its source gave."""
    return require_implemented(machine, "build_simulation_machine").build(guards)


def step_record(event: Mapping[str, Any], snapshot: Snapshot, action_types: list[str]) -> dict[str, Any]:
    record: dict[str, Any] = {
        "event": dict(event),
        "value": snapshot.value,
        "context": plain_json(snapshot.context),
        "status": snapshot.status,
        "tags": sorted(snapshot.tags),
        "output": plain_json(snapshot.output) if snapshot.status == "done" else None,
        "actions": action_types,
    }
    if snapshot.status == "error" and snapshot.error is not None:
        record["error"] = str(snapshot.error)
    return record


def _charged(record: dict[str, Any]) -> dict[str, Any]:
    """`record`, counted toward the call's output limit as it is made: a machine whose actions
    grow its context (a 4 MB string per event) is refused before its steps fill the memory."""
    charge_output(len(json.dumps(record, ensure_ascii=False, default=str)))
    return record


def simulate(implemented: ImplementedMachine, events: Sequence[Mapping[str, Any]], input_value: Any = None,
             guards: Mapping[str, bool] | None = None) -> dict[str, Any]:
    """Run `events` and return `{steps, normalization, execution}`."""
    machine, normalization = build_simulation_machine(implemented, guards)
    snapshot, actions = initial_transition(machine, input_value)
    steps = [_charged(step_record({"type": "xstate.init"}, snapshot, [a.type for a in actions]))]
    stopped: str | None = None
    for number, event in enumerate(events, start=1):
        check_budget()
        try:
            snapshot, actions = transition(machine, snapshot, event)
        except EngineError as error:
            errored = snapshot.clone(status="error", error=error.describe())
            steps.append(_charged(step_record(event, errored, [])))
            stopped = f"the machine threw on event '{event['type']}': {error.describe()}"
            break
        steps.append(_charged(step_record(event, snapshot, [a.type for a in actions])))
        report_progress(number, len(events), f"event {number} of {len(events)}")
    execution = {**ENGINE_INFO, "eventsProcessed": len(steps) - 1, "eventsGiven": len(events), "stopped": stopped}
    return {"steps": steps, "normalization": normalization, "execution": execution}
