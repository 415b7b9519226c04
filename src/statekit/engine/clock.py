"""A virtual clock for delayed events: time moves only when told to."""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable

#: A pending timer: `(due, sequence, key, callback)`. A tuple, ordered by due time and then
#: by scheduling order (sequences are unique, so the key and callback are never compared):
#: a timer is scheduled for nearly every delayed transition, and tuples are the cheapest.
_Timer = tuple[float, int, str, Callable[[], None]]


class VirtualClock:
    """Schedules callbacks at virtual times; `advance(ms)` fires the due ones in order."""

    def __init__(self) -> None:
        self.now: float = 0
        self._timers: list[_Timer] = []
        self._cancelled: set[int] = set()
        self._by_key: dict[str, int] = {}
        self._sequence = itertools.count()

    def schedule(self, key: str, delay: float, callback: Callable[[], None]) -> None:
        """Run `callback` after `delay` ms; a timer with the same key replaces the earlier one."""
        by_key = self._by_key
        replaced = by_key.get(key)  # `cancel(key)`, inline: every delayed transition comes here
        if replaced is not None:
            self._cancelled.add(replaced)
        sequence = next(self._sequence)
        by_key[key] = sequence
        heapq.heappush(self._timers, (self.now + max(delay, 0), sequence, key, callback))

    def cancel(self, key: str) -> None:
        """Drop the pending timer with `key`, if any."""
        sequence = self._by_key.pop(key, None)
        if sequence is not None:
            self._cancelled.add(sequence)

    def pending(self) -> list[tuple[float, str]]:
        """`(due time, key)` of every pending timer, soonest first."""
        return sorted((due, key) for due, sequence, key, _ in self._timers if sequence not in self._cancelled)

    def advance(self, ms: float) -> None:
        """Move time forward by `ms`, firing every timer that falls due, in time order."""
        target = self.now + ms
        timers = self._timers
        while timers and timers[0][0] <= target:
            due, sequence, key, callback = heapq.heappop(timers)
            if sequence in self._cancelled:
                self._cancelled.discard(sequence)
                continue
            self._by_key.pop(key, None)
            self.now = due
            callback()
        self.now = target
