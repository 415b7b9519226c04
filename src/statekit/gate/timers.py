"""`after` transitions on the wall clock: turning the engine's delayed raises into stored timers.

The engine returns a delayed `xstate.raise` for every `after` transition it enters and an
`xstate.cancel` when the state is left. The gate applies those to the record's timer list
(a timer with the same send id replaces the earlier one, as in XState's scheduler) and
fires due timers in XState's order: earliest due time first, then scheduling order.
A timer that fires late (nobody read the workflow for a while) is processed at its own
due time, so chains of `after` transitions catch up as if the process had been running.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from statekit.engine import Machine, transition
from statekit.gate.record import Timer

logger = logging.getLogger("statekit.gate")

#: Bounds one catch-up (an `after` loop that re-enters itself would otherwise never end).
MAX_TIMERS_PER_READ = 1000


def apply_timer_actions(
    timers: Sequence[Timer], actions: Iterable[Any], base_time: float
) -> tuple[Timer, ...]:
    """The timer list after the engine's `actions` ran at `base_time` (epoch seconds)."""
    pending = {timer.send_id: timer for timer in timers}
    sequence = max((timer.sequence for timer in timers), default=0)
    for action in actions:
        params = action.params if isinstance(action.params, dict) else {}
        if action.type == "xstate.raise" and "delay" in params:
            event = params["event"]
            send_id = str(params.get("id") or event.get("type"))
            sequence += 1
            pending[send_id] = Timer(
                send_id, dict(event), base_time + float(params["delay"]) / 1000.0, sequence
            )
        elif action.type == "xstate.cancel":
            pending.pop(str(params.get("sendId")), None)
        elif action.type == "xstate.sendTo" and "delay" in params:
            logger.warning(
                "statekit.gate: a delayed sendTo to %r is not supported by the gate and was dropped",
                params.get("targetId"),
            )
    return tuple(pending.values())


@dataclass(frozen=True)
class FiredTimer:
    """One timer that fired: the event, when it was due, and the states around it."""

    event: str
    due_at: float
    source: Any
    target: Any


def fire_due(
    machine: Machine, snapshot: Any, timers: Sequence[Timer], now: float
) -> tuple[Any, tuple[Timer, ...], list[FiredTimer]]:
    """Fire every timer due at `now`, in order; returns the snapshot, the timers left, and what fired."""
    fired: list[FiredTimer] = []
    remaining = tuple(timers)
    while remaining and len(fired) < MAX_TIMERS_PER_READ:
        if snapshot.status != "active":
            return snapshot, (), fired
        due = min(remaining, key=lambda timer: (timer.due_at, timer.sequence))
        if due.due_at > now:
            break
        remaining = tuple(timer for timer in remaining if timer is not due)
        before = snapshot.value
        snapshot, actions = transition(machine, snapshot, due.event)
        remaining = apply_timer_actions(remaining, actions, due.due_at)
        fired.append(FiredTimer(str(due.event.get("type")), due.due_at, before, snapshot.value))
    if snapshot.status != "active":
        remaining = ()
    return snapshot, remaining, fired
