"""The pure engine API: `initial_transition` and `transition`, like XState's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from statekit.engine.actions import ActionContext, ExecutableAction
from statekit.engine.algorithm import (
    all_state_nodes,
    initial_snapshot,
    is_in_final_state,
    macrostep,
)
from statekit.engine.evaluation import ActorScope, JsEvaluator
from statekit.engine.implementations import Implementations
from statekit.engine.machine import Machine
from statekit.engine.snapshot import ChildRef, Snapshot, Status
from statekit.errors import EngineError, MachineDefinitionError


def create_machine(config: Any, implementations: Implementations | None = None,
                   *, max_iterations: int | None = None) -> Machine:
    """Build a runnable machine from an XState config (a dict, or `{"machine": config}`)."""
    return Machine.from_config(config, implementations, max_iterations=max_iterations)


def initial_transition(machine: Machine, input: Any = None) -> tuple[Snapshot, list[ExecutableAction]]:
    """The initial snapshot and the actions of entering it. Errors give `status: "error"`."""
    return start_transition(machine, input, None)


def start_transition(machine: Machine, input: Any, actor_scope: ActorScope | None) -> tuple[Snapshot, list[ExecutableAction]]:
    """`initial_transition` for the actor `actor_scope` says (None: the evaluator's default;
    "running" for an actor that runs the machine, see `statekit.engine.evaluation.ActorScope`)."""
    ctx = ActionContext()
    evaluator = machine.evaluator
    if type(evaluator) is JsEvaluator:
        evaluator.begin(ctx, actor_scope)
    snapshot = initial_snapshot(machine, ctx, input)
    return snapshot, ctx.actions


def event_object(event: Mapping[str, Any] | str) -> Mapping[str, Any]:
    """`event` as an event object (a string is its type); `EngineError` unless it has a string `type`."""
    if type(event) is not dict:  # (a dict is the common case: no ABC check for it)
        if isinstance(event, str):
            event = {"type": event}
        elif not isinstance(event, Mapping):
            raise EngineError("an event must be an object with a string `type`")
    if not isinstance(event.get("type"), str):
        raise EngineError("an event must be an object with a string `type`")
    return event


def transition(machine: Machine, snapshot: Snapshot, event: Mapping[str, Any] | str) -> tuple[Snapshot, list[ExecutableAction]]:
    """The next snapshot and the executable actions for `event`; raises `EngineError` like XState throws."""
    event = event_object(event)
    if snapshot.machine is not machine:
        snapshot = restore_snapshot(machine, snapshot.to_json())
    return run_macrostep(snapshot, event)


def run_macrostep(snapshot: Snapshot, event: Mapping[str, Any],
                  actor_scope: ActorScope | None = None) -> tuple[Snapshot, list[ExecutableAction]]:
    """`transition` for an event already checked; the actor calls this directly (`actor_scope`:
    as in `start_transition`)."""
    ctx = ActionContext()
    evaluator = snapshot.machine.evaluator
    if type(evaluator) is JsEvaluator:
        evaluator.begin(ctx, actor_scope)
    try:
        next_snapshot = macrostep(snapshot, event, ctx)
    except EngineError:
        raise
    except RecursionError:
        raise EngineError("the machine nests or recurses too deeply to run") from None
    except Exception as error:  # an implementation raised: XState's transition() rethrows it
        raise EngineError(str(error) or type(error).__name__) from error
    return next_snapshot, ctx.actions


def restore_snapshot(machine: Machine, data: Mapping[str, Any]) -> Snapshot:
    """A snapshot from `Snapshot.to_json()` data (XState's `resolveState` + history revival)."""

    value = data.get("value")
    if value is None:
        raise MachineDefinitionError("a persisted snapshot needs a `value`")
    all_nodes = all_state_nodes(machine.state_path_nodes(value))
    history: dict[str, tuple[Any, ...]] = {}
    for key, items in (data.get("historyValue") or {}).items():
        resolved = []
        for item in items:
            state_id = item.get("id") if isinstance(item, Mapping) else item
            if isinstance(state_id, str) and state_id in machine.id_map:
                resolved.append(machine.id_map[state_id])
        if resolved:
            history[key] = tuple(resolved)
    children: dict[str, ChildRef | None] = {}
    for key, child in (data.get("children") or {}).items():
        children[key] = (
            ChildRef(id=key, src=child.get("src"), input=child.get("input"), system_id=child.get("systemId"))
            if isinstance(child, Mapping) else None
        )
    given_status = data.get("status")
    status: Status = given_status if given_status in ("active", "done", "error", "stopped") else "active"
    if is_in_final_state(dict.fromkeys(all_nodes), machine.root):
        status = "done"
    return Snapshot(machine, all_nodes, data.get("context") if data.get("context") is not None else {},
                    status=status, output=data.get("output"), error=data.get("error"),
                    children=children, history=history)
