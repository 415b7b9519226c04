"""Per-key asyncio locks that disappear when nobody holds or waits for them."""

from __future__ import annotations

import asyncio
from types import TracebackType


class _Entry:
    __slots__ = ("lock", "users")

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.users = 0


class KeyedLocks:
    """One `asyncio.Lock` per workflow key, so calls on one key run one at a time in this process.

    Entries are reference-counted and dropped when the last user leaves, so a
    server that sees millions of handles does not keep a lock for each.
    """

    def __init__(self) -> None:
        self._entries: dict[str, _Entry] = {}

    def hold(self, key: str) -> _Held:
        """`async with locks.hold(key):` runs the block holding the lock of `key`."""
        return _Held(self._entries, key)

    def is_held(self, key: str) -> bool:
        """True while some task holds (or waits for) the lock of `key`."""
        return key in self._entries

    def __len__(self) -> int:
        return len(self._entries)


class _Held:
    # A plain class rather than @asynccontextmanager: it wraps every gated call,
    # and a generator-based manager costs several times more per use.
    __slots__ = ("_entries", "_entry", "_key")

    def __init__(self, entries: dict[str, _Entry], key: str) -> None:
        self._entries = entries
        self._key = key
        entry = entries.get(key)
        if entry is None:
            entry = entries[key] = _Entry()
        self._entry = entry

    async def __aenter__(self) -> None:
        self._entry.users += 1
        try:
            await self._entry.lock.acquire()
        except BaseException:
            self._leave()
            raise

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._entry.lock.release()
        self._leave()

    def _leave(self) -> None:
        self._entry.users -= 1
        if self._entry.users == 0:
            del self._entries[self._key]
