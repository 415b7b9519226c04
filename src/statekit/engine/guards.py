"""Guard evaluation (XState's `evaluateGuard` and the `and`/`or`/`not`/`stateIn` built-ins).

The built-ins are XState semantics and are evaluated here; every other guard (named or
inline) goes to the machine's evaluator (`statekit.engine.evaluation`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from statekit.engine.evaluation import Scope
from statekit.engine.machine import ROUTE_GUARD
from statekit.model.core import Guard
from statekit.model.inline import JS_MARKER

if TYPE_CHECKING:
    from statekit.engine.snapshot import Snapshot


def evaluate_guard(guard: Guard, context: Any, event: Mapping[str, Any], snapshot: Snapshot) -> bool:
    """`evaluateGuard`: whether `guard` passes for `context` and `event` in `snapshot`."""
    guard_type = guard.type
    if guard_type == "xstate.and":
        return all(evaluate_guard(g, context, event, snapshot) for g in guard.guards)
    if guard_type == "xstate.or":
        return any(evaluate_guard(g, context, event, snapshot) for g in guard.guards)
    if guard_type == "xstate.not":
        return not evaluate_guard(guard.guards[0], context, event, snapshot)
    if guard_type == "xstate.stateIn":
        return _state_in(guard.state, snapshot)
    if guard_type == ROUTE_GUARD:  # a route transition's own guard
        return bool(event.get("to") == guard.state)
    machine = snapshot.machine
    evaluator = machine.evaluator
    params: Any = None
    if guard.has_params:  # params written as a function are computed first; data is data
        params = guard.params
        if not _is_data(params, machine.has_unresolved):
            params = evaluator.value(params, Scope(context, event), where="guard params")
    return evaluator.guard(guard, Scope(context, event, params,
                                        check=lambda other: evaluate_guard(other, context, event, snapshot),
                                        in_state=lambda state: _state_in(state, snapshot)))


def _is_data(value: Any, has_unresolved: bool) -> bool:
    """Whether guard params are plain data, which no evaluator computes (a dict without code, when
    the machine holds no value the source reader left unevaluated)."""
    kind = type(value)
    if kind in (str, int, float, bool):
        return True
    return kind is dict and not has_unresolved and JS_MARKER not in value


def _state_in(state: Any, snapshot: Snapshot) -> bool:
    if isinstance(state, str) and state.startswith("#"):
        target = snapshot.machine.node_by_id(state)
        return target in snapshot.node_set
    return snapshot.matches(state)
