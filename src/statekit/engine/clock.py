"""A virtual clock for delayed events: time moves only when told to.

The clock is XState's `Clock` (`setTimeout` / `clearTimeout`), with time that moves by
`advance(ms)`; which timer an id names is the scheduler's business (`Actor`, as XState's
`system.scheduler`). Each due timer runs at its own due time, in due order, and at equal due
times in the order it was set (as a real clock runs `setTimeout`s; XState's `SimulatedClock`
instead runs everything due at the end of an increment).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable
from typing import Any

#: A pending timer: `[due, sequence, callback, argument, owner, key]`; the clock calls
#: `callback(argument, key)` at `due`. The heap orders timers by due time, then by sequence
#: (unique, so nothing after it is ever compared). A plain list, because a timer is made for
#: nearly every delayed transition and a list is the cheapest object the heap can order, and
#: because clearing it is one store (`callback = None`): a cleared timer stays in the heap
#: until it comes up (lazy deletion; `COMPACT_AT` bounds the heap). `owner` and `key` are
#: what `pending()` shows (`owner.key`, XState's scheduled event id `${sessionId}.${id}`), kept
#: apart so that no string is built per timer.
Timer = list[Any]
TimerCallback = Callable[[Any, Any], None]

_DUE, _SEQUENCE, _CALLBACK, _ARGUMENT, _OWNER, _KEY = range(6)

#: The heap is rebuilt without its cleared timers when it reaches this size, and then whenever
#: it doubles from what the rebuild left (never below this): timers cleared long before they
#: are due (a state re-entered many times while the clock stands still) do not grow it beyond
#: twice the live timers, and each rebuild is paid for by the timers set since the last one.
COMPACT_AT = 64


class VirtualClock:
    """Runs timers at virtual times; `advance(ms)` fires the due ones in order."""

    def __init__(self) -> None:
        self.now: float = 0
        self._heap: list[Timer] = []
        self._compact_at = COMPACT_AT
        self._sequence = itertools.count()
        self._by_key: dict[str, Timer] = {}  # the timers of `schedule`, by key

    def set_timeout(self, delay: float, callback: TimerCallback, argument: Any, owner: str = "", key: Any = "") -> Timer:
        """XState's `clock.setTimeout`: call `callback(argument, key)` `delay` ms from now.

        Returns the timer, the handle `clear_timeout` takes."""
        now = self.now
        timer = [now + delay if delay > 0 else now, next(self._sequence), callback, argument, owner, key]
        heap = self._heap
        if len(heap) >= self._compact_at:
            self._compact()
        heapq.heappush(heap, timer)
        return timer

    @staticmethod
    def clear_timeout(timer: Timer) -> None:
        """XState's `clock.clearTimeout`: `timer` will not run (nothing if it ran or was cleared).

        It stays in the heap until it comes up or the heap is next rebuilt (`COMPACT_AT`)."""
        timer[_CALLBACK] = None

    def _compact(self) -> None:
        heap = self._heap
        heap[:] = [timer for timer in heap if timer[_CALLBACK] is not None]  # in place: `advance` holds it
        heapq.heapify(heap)
        self._compact_at = max(COMPACT_AT, 2 * len(heap))

    def schedule(self, key: str, delay: float, callback: Callable[[], None]) -> None:
        """Run `callback()` after `delay` ms; a timer with the same key replaces the earlier one."""
        self.cancel(key)
        self._by_key[key] = self.set_timeout(delay, self._fire_keyed, callback, "", key)

    def cancel(self, key: str) -> None:
        """Drop the pending timer `schedule` set with `key`, if any."""
        timer = self._by_key.pop(key, None)
        if timer is not None:
            self.clear_timeout(timer)

    def _fire_keyed(self, callback: Callable[[], None], key: str) -> None:
        del self._by_key[key]
        callback()

    def pending(self) -> list[tuple[float, str]]:
        """`(due time, id)` of every pending timer, soonest first (an actor's: `session.sendId`)."""
        return sorted((timer[_DUE], f"{timer[_OWNER]}.{timer[_KEY]}" if timer[_OWNER] else str(timer[_KEY]))
                      for timer in self._heap if timer[_CALLBACK] is not None)

    def advance(self, ms: float) -> None:
        """Move time forward by `ms`, firing every timer that falls due, in time order."""
        target = self.now + ms
        heap = self._heap
        while heap and heap[0][_DUE] <= target:
            timer = heapq.heappop(heap)
            callback = timer[_CALLBACK]
            if callback is None:  # cleared: dropped now that it came up
                continue
            timer[_CALLBACK] = None  # fired: clearing it later does nothing
            self.now = timer[_DUE]
            callback(timer[_ARGUMENT], timer[_KEY])
        self.now = target

    def clear_timeouts_of(self, owner: str) -> None:
        """Clear every pending timer set with `owner` (an actor that stops: XState's `cancelAll`)."""
        for timer in self._heap:
            if timer[_OWNER] == owner:
                timer[_CALLBACK] = None
