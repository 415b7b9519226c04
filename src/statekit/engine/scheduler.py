"""XState's scheduler (`system.scheduler`) for callers that keep their pending timers as data.

`Actor` keeps its timers on a running clock. The gate's workflow records and the live
machines' records keep them as stored data instead, stepped by the pure engine between
calls; both apply the engine's delayed raises and cancels with these rules, which are
XState's to the letter (`createSystem` in system.ts):

- a delayed raise schedules a timer, and the scheduler's map entry for its send id points to
  it; a timer the id named before is *not* cleared, so both fire;
- a raise without an id gets one nothing can name (XState draws a random one), so no cancel
  reaches it and it replaces nothing;
- a cancel clears the timer its id's map entry points to, if any;
- when a timer fires, its id's map entry goes, whichever timer it pointed to, so a later
  cancel of that id clears nothing (an older timer firing orphans a newer one);
- timers fire in due order, and at equal due times in the order they were scheduled.

A caller whose actor is no longer active drops every timer (XState's `cancelAll`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

__all__ = ["PendingTimer", "apply_scheduler_actions", "next_due", "without_fired"]


@dataclass(frozen=True)
class PendingTimer:
    """One scheduled delayed event, in the caller's time unit."""

    #: The send id (an `after` transition's is its event type); None when the raise had none.
    send_id: str | None
    event: Mapping[str, Any]
    due: float
    #: Scheduling order: the tie-break between timers due at the same time.
    sequence: int
    #: Whether the scheduler's map entry for `send_id` points to this timer (what a cancel clears).
    named: bool = True


def apply_scheduler_actions(pending: Sequence[PendingTimer], actions: Iterable[Any],
                            due_in: Callable[[float], float], sequence: int) -> tuple[list[PendingTimer], int]:
    """The timers after a step's executable `actions` (delayed `xstate.raise`, `xstate.cancel`);
    `due_in(delay_ms)` is when a timer set now is due (the delay as the engine gives it: whole
    milliseconds stay an int), `sequence` the last sequence number used.
    Returns the timers and the last sequence number used."""
    timers = list(pending)
    for action in actions:
        params = action.params if isinstance(action.params, Mapping) else {}
        if action.type == "xstate.raise" and "delay" in params:
            send_id = params.get("id")
            send_id = None if send_id is None else str(send_id)
            if send_id is not None:
                timers = [_unnamed(timer) if timer.send_id == send_id else timer for timer in timers]
            sequence += 1
            timers.append(PendingTimer(send_id, dict(params["event"]), due_in(params["delay"]), sequence))
        elif action.type == "xstate.cancel":
            raw = params.get("sendId")
            send_id = "undefined" if raw is None else str(raw)  # the id as XState's template string makes it
            timers = [timer for timer in timers if not (timer.named and timer.send_id == send_id)]
    return timers, sequence


def next_due(pending: Sequence[PendingTimer]) -> PendingTimer | None:
    """The timer that fires next: the earliest due, then the first scheduled."""
    return min(pending, key=lambda timer: (timer.due, timer.sequence), default=None)


def without_fired(pending: Sequence[PendingTimer], fired: PendingTimer) -> list[PendingTimer]:
    """The timers left once `fired` fired: it is gone (sequence numbers are unique), and so is its
    id's map entry."""
    return [_unnamed(timer) if fired.send_id is not None and timer.send_id == fired.send_id else timer
            for timer in pending if timer.sequence != fired.sequence]


def _unnamed(timer: PendingTimer) -> PendingTimer:
    return replace(timer, named=False) if timer.named else timer
