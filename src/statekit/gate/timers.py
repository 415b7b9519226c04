"""`after` transitions on the wall clock: turning the engine's delayed raises into stored timers.

The engine returns a delayed `xstate.raise` for every `after` transition it enters and an
`xstate.cancel` when the state is left. The gate applies those to the record's timer list
with XState's scheduler rules (`statekit.engine.scheduler`: an id scheduled twice fires twice,
a raise without an id is never cancelled, a fired timer's id names nothing any more) and
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
from statekit.engine.scheduler import PendingTimer, apply_scheduler_actions, without_fired
from statekit.gate.record import Timer

logger = logging.getLogger("statekit.gate")

#: Bounds one catch-up (an `after` loop that re-enters itself would otherwise never end).
MAX_TIMERS_PER_READ = 1000


def apply_timer_actions(
    timers: Sequence[Timer], actions: Iterable[Any], base_time: float
) -> tuple[Timer, ...]:
    """The timer list after the engine's `actions` ran at `base_time` (epoch seconds)."""
    actions = list(actions)
    for action in actions:
        params = action.params if isinstance(action.params, dict) else {}
        if action.type == "xstate.sendTo" and "delay" in params:
            logger.warning(
                "statekit.gate: a delayed sendTo to %r is not supported by the gate and was dropped",
                params.get("targetId"),
            )
    pending, _ = apply_scheduler_actions(
        [_pending(timer) for timer in timers], actions, lambda delay: base_time + max(delay, 0.0) / 1000.0,
        max((timer.sequence for timer in timers), default=0))
    return tuple(_timer(item) for item in pending)


def _pending(timer: Timer) -> PendingTimer:
    return PendingTimer(timer.send_id, timer.event, timer.due_at, timer.sequence, timer.named)


def _timer(pending: PendingTimer) -> Timer:
    return Timer(pending.send_id, pending.event, pending.due, pending.sequence, pending.named)


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
        remaining = tuple(_timer(item) for item in without_fired([_pending(timer) for timer in remaining], _pending(due)))
        before = snapshot.value
        snapshot, actions = transition(machine, snapshot, due.event)
        remaining = apply_timer_actions(remaining, actions, due.due_at)
        fired.append(FiredTimer(str(due.event.get("type")), due.due_at, before, snapshot.value))
    if snapshot.status != "active":
        remaining = ()
    return snapshot, remaining, fired
