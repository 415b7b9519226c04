"""Which transitions a step takes, for transition coverage.

The engine's `transition()` returns the next snapshot and the executable actions, not the
transitions it selected. Coverage needs those, including the eventless (`always`) and
internally raised ones taken later in the same macrostep, so this module replays XState's
`macrostep` loop with the engine's own selection and microstep functions and records every
selected transition. The loop mirrors `statekit.engine.algorithm.macrostep` line for line;
tests/analysis/test_paths.py checks on the whole paths corpus that the replay ends in the snapshot
`transition()` gives, so a change to the engine's loop that is not made here fails a test.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from statekit.engine.actions import ActionContext
from statekit.engine.algorithm import (
    XSTATE_INIT,
    initial_nodes,
    microstep,
    select_eventless_transitions,
    select_transitions,
)
from statekit.engine.machine import Machine, RuntimeTransition
from statekit.engine.snapshot import Snapshot


def _macrostep_transitions(snapshot: Snapshot, event: Mapping[str, Any], ctx: ActionContext,
                           taken: list[RuntimeTransition]) -> Snapshot:
    next_event: Mapping[str, Any] = event
    next_snapshot = snapshot
    if event.get("type") != XSTATE_INIT:
        transitions = select_transitions(next_snapshot, next_event)
        taken.extend(transitions)
        next_snapshot = microstep(transitions, snapshot, ctx, next_event, False)
    should_select_eventless = True
    iterations = 0
    limit = snapshot.machine.max_iterations
    while next_snapshot.status == "active":
        iterations += 1
        if limit is not None and iterations > limit:
            break  # the engine raised for this step already; coverage stops here
        enabled = select_eventless_transitions(next_snapshot, next_event) if should_select_eventless else []
        previous: Snapshot | None = next_snapshot if enabled else None
        if not enabled:
            if not ctx.internal_queue:
                break
            next_event = ctx.internal_queue.pop(0)
            enabled = select_transitions(next_snapshot, next_event)
        taken.extend(enabled)
        next_snapshot = microstep(enabled, next_snapshot, ctx, next_event, False)
        should_select_eventless = next_snapshot is not previous
    return next_snapshot


def step_transitions(snapshot: Snapshot, event: Mapping[str, Any]) -> tuple[Snapshot, list[RuntimeTransition]]:
    """The snapshot after `event` and every transition the macrostep selected, in order."""
    taken: list[RuntimeTransition] = []
    result = _macrostep_transitions(snapshot, event, ActionContext(), taken)
    return result, taken


def initial_transitions(machine: Machine, context: Any, input_value: Any = None) -> tuple[Snapshot, list[RuntimeTransition]]:
    """The initial snapshot and the transitions its macrostep selected (eventless, raised).

    `context` is the machine's initial context as data; the root's initial transition itself
    has no model transition and is not listed.
    """
    init_event: dict[str, Any] = {"type": XSTATE_INIT} if input_value is None else {"type": XSTATE_INIT, "input": input_value}
    ctx = ActionContext()
    snapshot = Snapshot(machine, (machine.root,), context)
    root_transition = RuntimeTransition(machine.root, "", initial_nodes(machine.root), None, [], True, None)
    entered = microstep([root_transition], snapshot, ctx, init_event, True)
    taken: list[RuntimeTransition] = []
    result = _macrostep_transitions(entered, init_event, ctx, taken)
    return result, taken
