"""A virtual clock for delayed events: time moves only when told to."""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(order=True)
class _Timer:
    due: float
    sequence: int
    key: str = field(compare=False)
    callback: Callable[[], None] = field(compare=False)


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
        self.cancel(key)
        timer = _Timer(self.now + max(delay, 0), next(self._sequence), key, callback)
        self._by_key[key] = timer.sequence
        heapq.heappush(self._timers, timer)

    def cancel(self, key: str) -> None:
        """Drop the pending timer with `key`, if any."""
        sequence = self._by_key.pop(key, None)
        if sequence is not None:
            self._cancelled.add(sequence)

    def pending(self) -> list[tuple[float, str]]:
        """`(due time, key)` of every pending timer, soonest first."""
        return sorted((t.due, t.key) for t in self._timers if t.sequence not in self._cancelled)

    def advance(self, ms: float) -> None:
        """Move time forward by `ms`, firing every timer that falls due, in time order."""
        target = self.now + ms
        while self._timers and self._timers[0].due <= target:
            timer = heapq.heappop(self._timers)
            if timer.sequence in self._cancelled:
                self._cancelled.discard(timer.sequence)
                continue
            self._by_key.pop(timer.key, None)
            self.now = timer.due
            timer.callback()
        self.now = target
