"""Guard evaluation (XState's `evaluateGuard` and the `and`/`or`/`not`/`stateIn` built-ins)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from statekit.engine.implementations import ActionArgs
from statekit.engine.inline import JS_MARKER, evaluate_inline, is_inline
from statekit.errors import EngineError
from statekit.model.core import Guard
from statekit.model.parse import parse_guard

if TYPE_CHECKING:
    from statekit.engine.snapshot import Snapshot


def evaluate_guard(guard: Guard, context: Any, event: Mapping[str, Any], snapshot: Snapshot) -> bool:
    """Whether `guard` passes for `context` and `event` in `snapshot`."""
    guard_type = guard.type
    if guard_type == "xstate.and":
        return all(evaluate_guard(g, context, event, snapshot) for g in guard.guards)
    if guard_type == "xstate.or":
        return any(evaluate_guard(g, context, event, snapshot) for g in guard.guards)
    if guard_type == "xstate.not":
        return not evaluate_guard(guard.guards[0], context, event, snapshot)
    if guard_type == "xstate.stateIn":
        return _state_in(guard.state, snapshot)
    machine = snapshot.machine
    implementation = machine.implementations.guards.get(guard_type)
    if implementation is None:
        if guard.code is not None:  # an inline guard function, kept as source
            args = {"context": context, "event": event}
            return bool(evaluate_inline(machine.implementations.evaluator, guard.code, args,
                                        _params(guard, context, event, machine), "a guard"))
        raise EngineError(f"Guard '{guard_type}' is not implemented.'.")
    if not callable(implementation):
        # A guard implemented as another guard (a name or a guard object).
        return evaluate_guard(parse_guard(implementation, guard_type), context, event, snapshot)
    return bool(implementation(ActionArgs(context, event), _params(guard, context, event, machine)))


def _params(guard: Guard, context: Any, event: Mapping[str, Any], machine: Any) -> Any:
    """The guard's params; params written as a function are computed first (in the sandbox)."""
    params: Any = guard.params if guard.has_params else None
    if is_inline(params):
        return evaluate_inline(machine.implementations.evaluator, params[JS_MARKER],
                               {"context": context, "event": event}, None, "guard params")
    return params


def _state_in(state: Any, snapshot: Snapshot) -> bool:
    if isinstance(state, str) and state.startswith("#"):
        target = snapshot.machine.node_by_id(state)
        return target in snapshot.node_set
    return snapshot.matches(state)
