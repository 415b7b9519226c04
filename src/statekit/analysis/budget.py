"""Budgets for work whose size the input decides (graph traversals): states, memory, time, cancel.

A traversal asks `BudgetClock.exceeded()` every few hundred steps and, when it says why,
stops and returns what it found with that reason, instead of running for minutes or growing
past the machine's memory.

The tools pipeline can bound a whole call: `call_limits` is a context variable holding a
deadline (`time.monotonic()` seconds) and a cancel callback; every traversal started while it
is set stops at the earlier of its own deadline and the call's, and as soon as the callback
returns true. Set it with `bounded_call(deadline=..., cancelled=...)` around the tool call.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Literal

from statekit.budget import current_budget, report_progress

TruncationReason = Literal["limit", "states", "memory", "time", "cancelled", "simplePaths"]

#: Distinct states a traversal keeps at most (each holds a snapshot and its edges).
DEFAULT_MAX_STATES = 200_000
#: Estimated bytes a traversal may hold (states, edges, serialised contexts).
DEFAULT_MAX_BYTES = 512 * 1024 * 1024
#: Seconds a traversal may run when the caller sets no deadline.
DEFAULT_MAX_SECONDS = 30.0
#: Steps between two looks at the clock and the cancel callback (both cost a call).
CHECK_EVERY = 256


@dataclass(frozen=True)
class CallLimits:
    """What the pipeline knows about the current call: when it must end, whether it was cancelled."""

    deadline: float | None = None
    cancelled: Callable[[], bool] | None = None


call_limits: ContextVar[CallLimits | None] = ContextVar("statekit_call_limits", default=None)


@contextmanager
def bounded_call(deadline: float | None = None, cancelled: Callable[[], bool] | None = None) -> Iterator[None]:
    """Bound every traversal in the block by `deadline` (monotonic seconds) and `cancelled`."""
    token = call_limits.set(CallLimits(deadline, cancelled))
    try:
        yield
    finally:
        call_limits.reset(token)


@dataclass(frozen=True)
class Budget:
    """The most a traversal may use; `None` leaves a dimension unbounded."""

    max_states: int | None = DEFAULT_MAX_STATES
    max_bytes: int | None = DEFAULT_MAX_BYTES
    max_seconds: float | None = DEFAULT_MAX_SECONDS

    def start(self) -> BudgetClock:
        """A clock for one traversal, starting now, bounded by the call's limits too."""
        limits = call_limits.get()
        deadline = None if self.max_seconds is None else time.monotonic() + self.max_seconds
        cancelled = None
        if limits is not None:
            if limits.deadline is not None:
                deadline = limits.deadline if deadline is None else min(deadline, limits.deadline)
            cancelled = limits.cancelled
        call = current_budget()  # the tools pipeline's per-call budget (statekit.budget)
        if call is not None:
            if call.deadline is not None:
                deadline = call.deadline if deadline is None else min(deadline, call.deadline)
            own = cancelled

            def cancelled_or_call_cancelled() -> bool:
                return call.cancelled or (own is not None and own())

            cancelled = cancelled_or_call_cancelled
        return BudgetClock(self, deadline, cancelled)


class BudgetClock:
    """One traversal's use of its budget."""

    def __init__(self, budget: Budget, deadline: float | None, cancelled: Callable[[], bool] | None) -> None:
        self.budget = budget
        self.deadline = deadline
        self.cancelled = cancelled
        self.bytes = 0

    def exceeded(self, states: int) -> TruncationReason | None:
        """Why the traversal must stop now, with `states` kept so far; `None` to go on."""
        budget = self.budget
        if states:
            report_progress(states, budget.max_states, f"{states} states explored")
        if budget.max_states is not None and states >= budget.max_states:
            return "states"
        if budget.max_bytes is not None and self.bytes > budget.max_bytes:
            return "memory"
        if self.cancelled is not None and self.cancelled():
            return "cancelled"
        if self.deadline is not None and time.monotonic() > self.deadline:
            return "time"
        return None


_collector_lock = threading.Lock()
_collector_pauses = 0
_collector_was_enabled = False


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a traversal runs.

    A traversal allocates tens of thousands of objects that live until it ends (snapshots,
    state keys, queue entries, edges) and form no reference cycles. Each burst of allocations
    triggers a collection that walks the live objects and frees nothing: a quarter to a third
    of a traversal's time on 1,000-state machines. Reference counting still frees acyclic
    garbage at once, and the budget bounds what the traversal keeps. Nested and concurrent
    pauses (threads of the server) share one: the collector runs again when the last ends,
    and only if it ran before the first began.
    """
    global _collector_pauses, _collector_was_enabled
    with _collector_lock:
        if _collector_pauses == 0:
            _collector_was_enabled = gc.isenabled()
            gc.disable()
        _collector_pauses += 1
    try:
        yield
    finally:
        with _collector_lock:
            _collector_pauses -= 1
            if _collector_pauses == 0 and _collector_was_enabled:
                gc.enable()


TRUNCATION_MESSAGES: dict[TruncationReason, str] = {
    "limit": "more (state, event) pairs than `limit` to explore (XState would throw 'Traversal limit exceeded')",
    "states": "more distinct states than the traversal keeps",
    "memory": "the explored graph grew past the traversal's memory budget",
    "time": "the traversal ran out of time",
    "cancelled": "the call was cancelled",
    "simplePaths": "more simple paths than are enumerated",
}
