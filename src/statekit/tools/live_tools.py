"""`start_machine`, `send_events`, `get_machine_snapshot`, `stop_machine`: machines that live across calls.

Unlike every other machine tool these change state: a started machine stays in the server's
store (`statekit serve --store ...`, in memory by default) until it is stopped or its TTL
runs out, and each call moves it on. Their annotations say so.
"""

from __future__ import annotations

import threading
from typing import Any

from statekit.analysis.simulate import MAX_EVENTS, build_simulation_machine, child_actor_names
from statekit.engine.machine import Machine
from statekit.errors import ToolError
from statekit.gate.store import Quota, StoreError
from statekit.live import LiveMachines
from statekit.live.bridge import store_fault
from statekit.live.service import _NOT_FOUND, DEFAULT_TTL_SECONDS, MAX_TTL_SECONDS
from statekit.live.session import MAX_ADVANCE_MS
from statekit.live.stores import missing_sqlite_file, store_from_url
from statekit.tools.arguments import GUARDS_ARGUMENT, INPUT_ARGUMENT, MACHINE_ARGUMENT
from statekit.tools.inputs import load_implemented
from statekit.tools.machine_tools import STEP_SCHEMA
from statekit.tools.registry import ToolAnnotations, ToolContext, ToolSpec, register

_lock = threading.Lock()
_SERVICE = "live_machines"


def runnable_machine(machine: Any, guards: Any) -> tuple[Machine, dict[str, Any]]:
    """The machine argument (any format) built as simulate_machine builds it, and what was assumed.

    The pipeline has checked `guards` against the input schema (and stored records hold only
    arguments that passed it). Like simulate_machine's, the normalization names the format read
    and the defaults a structure-only format filled in (`assumed`).
    """
    implemented = load_implemented(machine)
    runnable, normalization = build_simulation_machine(implemented, guards)
    if implemented.assumed:
        normalization["assumed"] = list(implemented.assumed)
    not_run = child_actor_names(implemented.model)
    if not_run:
        # A live machine is a running actor, as XState's createActor makes, but its children are
        # never run: what they would send back (done events, sendParent, sendBack) never comes.
        normalization["actorsNotRun"] = sorted(not_run)
    return runnable, normalization


def live_machines(context: ToolContext) -> LiveMachines:
    """The context's live machine service, made on first use from its store URL and quota (and
    shared by the per-call copies of the context: `ToolContext.shared`)."""
    with _lock:
        service = context.shared.get(_SERVICE)
        if not isinstance(service, LiveMachines):
            try:
                store = store_from_url(context.store_url, ttl_seconds=MAX_TTL_SECONDS)
            except ValueError as error:
                raise ToolError("capability_disabled", f"live machines need a store: {error}") from None
            except StoreError as error:  # a damaged SQLite file, say: coded, and tried again next call
                raise store_fault(error) from None
            quota = Quota(max_records=context.live_max_machines, max_bytes=context.live_max_bytes)
            # Its engine work runs where the call supervisor puts it (a worker), the store stays here.
            service = context.shared[_SERVICE] = LiveMachines(store, runnable_machine, quota=quota,
                                                              compute=context.compute)
        return service


HANDLE = {"type": "string", "description": "The handle start_machine returned (lm_...)."}
SNAPSHOT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "value": {"anyOf": [{"type": "string"}, {"type": "object"}]},
        "context": {}, "status": {"type": "string", "enum": ["active", "done", "error", "stopped"]},
        "tags": {"type": "array", "items": {"type": "string"}}, "output": {}, "error": {"type": "string"},
    },
    "required": ["value", "context", "status", "tags", "output"],
}
EXPIRES_AT = {"type": "string", "description": "When the machine is forgotten unless used again (ISO 8601, UTC)."}
NORMALIZATION = {"type": "object", "description": (
    "What simulation assumed (guards, actors) and the format read; `actorsNotRun` lists the `src` of every "
    "child actor the machine invokes or spawns by name, whose logic a live machine never runs (nor that of "
    "an actor inline code spawns): what a child would send back never arrives unless sent as an event.")}
CHANGES_STATE = ToolAnnotations(read_only=False, destructive=False, idempotent=False)


def _start(arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    return live_machines(context).start(arguments["machine"], input_value=arguments.get("input"),
                                        guards=arguments.get("guards"), ttl_seconds=arguments.get("ttlSeconds"),
                                        principal=context.principal)


def existing_live_machines(context: ToolContext) -> LiveMachines:
    """`live_machines` for a call on an existing handle: `not_found` without creating the store's
    file when its SQLite file does not exist (only `start_machine` makes a store)."""
    if context.shared.get(_SERVICE) is None and missing_sqlite_file(context.store_url) is not None:
        raise ToolError("not_found", _NOT_FOUND)  # the message an unknown handle gets
    return live_machines(context)


def _send(arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    return existing_live_machines(context).send(arguments["machineHandle"], arguments["events"],
                                       arguments.get("advanceMs", 0), principal=context.principal)


def _get(arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    return existing_live_machines(context).get(arguments["machineHandle"], principal=context.principal)


def _stop(arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    return existing_live_machines(context).stop(arguments["machineHandle"], principal=context.principal)


def _steps_summary(result: dict[str, Any]) -> str:
    lines = [f"{step['event']['type']} -> {step['value']} ({step['status']}) at {step['atMs']} ms"
             for step in result["steps"]]
    lines.append(f"Now: {result['snapshot']['value']} ({result['snapshot']['status']}), clock {result['clockMs']} ms.")
    if result.get("stopped"):
        lines.append(f"Stopped: {result['stopped']}")
    return "\n".join(lines)


def _snapshot_summary(result: dict[str, Any]) -> str:
    timers = ", ".join(f"{t['event']['type']} in {t['dueInMs']} ms" for t in result["pendingTimers"]) or "none"
    return (f"State {result['snapshot']['value']} ({result['snapshot']['status']}); "
            f"enabled events: {', '.join(result['enabledEvents']) or 'none'}; pending timers: {timers}.")


register(ToolSpec(
    name="start_machine",
    title="Start a live machine",
    description=(
        "Use to drive a machine step by step across calls: starts it and returns its handle and first snapshot "
        "for send_events, get_machine_snapshot and stop_machine. It is forgotten after ttlSeconds "
        f"(default {DEFAULT_TTL_SECONDS}) unused."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "machine": MACHINE_ARGUMENT,
            "input": INPUT_ARGUMENT,
            "guards": GUARDS_ARGUMENT,
            "ttlSeconds": {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_TTL_SECONDS},
        },
        "required": ["machine"],
        "additionalProperties": False,
    },
    output_schema={
        "type": "object",
        "properties": {"machineHandle": {"type": "string"}, "snapshot": SNAPSHOT_SCHEMA,
                       "actions": {"type": "array", "items": {"type": "string"}},
                       "expiresAt": EXPIRES_AT, "normalization": NORMALIZATION},
        "required": ["machineHandle", "snapshot", "actions", "expiresAt"],
    },
    function=_start,
    annotations=CHANGES_STATE,
    takes_context=True,
    host_side=True,
    summarize=lambda r: f"Started {r['machineHandle']} in {r['snapshot']['value']}; expires {r['expiresAt']}.",
))

register(ToolSpec(
    name="send_events",
    title="Send events to a live machine",
    description=(
        f"Use to move a live machine: sends up to {MAX_EVENTS} events (a type or {{type, ...payload}}), a step each, "
        "then advances its virtual clock by advanceMs, firing due delayed events."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "machineHandle": HANDLE,
            "events": {"type": "array", "maxItems": MAX_EVENTS,
                       "items": {"anyOf": [{"type": "string"},
                                           {"type": "object", "properties": {"type": {"type": "string"}},
                                            "required": ["type"]}]}},
            "advanceMs": {"type": "number", "minimum": 0, "maximum": MAX_ADVANCE_MS},
        },
        "required": ["machineHandle", "events"],
        "additionalProperties": False,
    },
    output_schema={
        "type": "object",
        "properties": {"steps": {"type": "array", "items": {**STEP_SCHEMA, "properties": {
                           **STEP_SCHEMA["properties"], "atMs": {"type": "number"}}}},
                       "snapshot": SNAPSHOT_SCHEMA, "clockMs": {"type": "number"}, "expiresAt": EXPIRES_AT,
                       "stopped": {"type": ["string", "null"]}},
        "required": ["steps", "snapshot", "clockMs", "expiresAt"],
    },
    function=_send,
    annotations=CHANGES_STATE,
    takes_context=True,
    host_side=True,
    summarize=_steps_summary,
))

register(ToolSpec(
    name="get_machine_snapshot",
    title="Read a live machine",
    description=(
        "Use to look at a live machine without changing it: its snapshot, the events it would take now and "
        "its pending delayed events."
    ),
    input_schema={"type": "object", "properties": {"machineHandle": HANDLE}, "required": ["machineHandle"],
                  "additionalProperties": False},
    output_schema={
        "type": "object",
        "properties": {
            "snapshot": SNAPSHOT_SCHEMA,
            "enabledEvents": {"type": "array", "items": {"type": "string"}},
            "pendingTimers": {"type": "array", "items": {"type": "object", "properties": {
                "id": {"type": ["string", "null"],
                       "description": "The send id; null when the delayed raise had none (no cancel reaches it)."},
                "event": {"type": "object"}, "atMs": {"type": "number"},
                "dueInMs": {"type": "number"}}, "required": ["id", "event", "atMs", "dueInMs"]}},
            "clockMs": {"type": "number"}, "expiresAt": EXPIRES_AT, "normalization": NORMALIZATION,
        },
        "required": ["snapshot", "enabledEvents", "pendingTimers", "expiresAt"],
    },
    function=_get,
    annotations=ToolAnnotations(read_only=True, destructive=False, idempotent=True),
    takes_context=True,
    host_side=True,
    summarize=_snapshot_summary,
))

register(ToolSpec(
    name="stop_machine",
    title="Stop a live machine",
    description="Use when done with a live machine: stops and forgets it (its handle then answers not_found).",
    input_schema={"type": "object", "properties": {"machineHandle": HANDLE}, "required": ["machineHandle"],
                  "additionalProperties": False},
    output_schema={"type": "object", "properties": {"stopped": {"type": "boolean"}, "value": {}},
                   "required": ["stopped"]},
    function=_stop,
    annotations=ToolAnnotations(read_only=False, destructive=True, idempotent=True),
    takes_context=True,
    host_side=True,
    summarize=lambda r: f"Stopped (last state {r.get('value')}).",
))
