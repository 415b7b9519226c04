"""The state store: a versioned key -> record store with compare-and-set and TTL.

Every store keeps, per key, one text record and a version number. `save` only
succeeds when the caller names the version it read (`expected_version`), so two
writers that read the same version can never both win: the second gets
`StoreConflict`. That one rule is what lets several server processes share a
workflow without double side effects (see `statekit.gate.gate` for how the gate
uses it to reserve a transition before the tool handler runs).

The interface knows nothing about workflows: keys and records are opaque text,
so anything that needs versioned records (the gate's workflows, live machine
snapshots) can share one store.

Faults are typed so callers can answer them precisely instead of crashing:
`StoreUnavailable` (the backend cannot be reached: retry later) and
`CorruptRecord` (the stored entry cannot be read: repair it with the admin API).
"""

from __future__ import annotations

import itertools
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from typing import Protocol, runtime_checkable


class StoreConflict(Exception):
    """`save` was called with a version that is no longer the stored one."""

    def __init__(
        self, handle: str, expected_version: int | None, actual_version: int | None
    ) -> None:
        super().__init__(
            f"state of {handle!r} moved: expected version {expected_version}, found {actual_version}"
        )
        self.handle = handle
        self.expected_version = expected_version
        self.actual_version = actual_version


class StoreError(Exception):
    """A store fault on one key: `key` names it, `retryable` says whether retrying can help."""

    retryable = True

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key
        self.reason = message


class StoreUnavailable(StoreError):
    """The backend could not be reached or failed (Redis down, disk error): retry later."""


class CorruptRecord(StoreError):
    """The stored entry cannot be decoded (garbage, wrong type, unknown state).

    Retrying does not help until someone repairs it (`GateAdmin.reset`, `force`, `delete`).
    """

    retryable = False


@runtime_checkable
class StateStore(Protocol):
    """Versioned records by key, with compare-and-set."""

    async def load(self, handle: str) -> tuple[str, int] | None:
        """The stored text and its version, or None when the key is unknown or expired."""
        ...

    async def save(self, handle: str, snapshot_json: str, expected_version: int | None) -> int:
        """Store `snapshot_json` if the current version is `expected_version` (None: absent).

        Returns the new version; raises `StoreConflict` when the version moved.
        """
        ...


@runtime_checkable
class ScanStore(StateStore, Protocol):
    """A store that can also enumerate and delete keys (what the admin API and the timer sweeper need)."""

    def keys(self, prefix: str = "") -> AsyncIterator[str]:
        """Every live key starting with `prefix` (order unspecified)."""
        ...

    async def delete(self, handle: str, expected_version: int | None = None) -> bool:
        """Delete the key (only at `expected_version` when given); True if something was deleted.

        Raises `StoreConflict` when `expected_version` is given and the version moved.
        """
        ...


class MemoryStore:
    """A single-process store: a dict guarded by the event loop (no awaits inside a save).

    Versions come from one store-wide counter, so a key that expired and was
    created again never reuses a version an old reader might still hold.
    `max_entries` bounds memory: the least recently used key is evicted first
    (an evicted session starts over, an evicted handle is NOT_FOUND).
    """

    #: Only this process can write it: the gate's per-key lock alone serialises
    #: transitions, so the gate skips the lease write (one store write per transition).
    process_local = True

    def __init__(
        self,
        *,
        ttl_seconds: float | None = None,
        max_entries: int | None = 100_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if ttl_seconds is not None and ttl_seconds <= 0:
            raise ValueError("ttl_seconds must be positive")
        if max_entries is not None and max_entries <= 0:
            raise ValueError("max_entries must be positive")
        self._ttl_seconds = ttl_seconds
        self._max_entries = max_entries
        self._clock = clock
        self._entries: OrderedDict[str, tuple[str, int, float | None]] = OrderedDict()
        self._versions = itertools.count(1)

    def _live(self, handle: str) -> tuple[str, int, float | None] | None:
        entry = self._entries.get(handle)
        if entry is None:
            return None
        expires_at = entry[2]
        if expires_at is not None and expires_at <= self._clock():
            del self._entries[handle]
            return None
        self._entries.move_to_end(handle)
        return entry

    def __len__(self) -> int:
        return len(self._entries)

    async def load(self, handle: str) -> tuple[str, int] | None:
        """The stored text and its version, or None."""
        entry = self._live(handle)
        return None if entry is None else (entry[0], entry[1])

    async def save(self, handle: str, snapshot_json: str, expected_version: int | None) -> int:
        """Compare-and-set; the check and the write happen without yielding to the loop."""
        entry = self._live(handle)
        actual = None if entry is None else entry[1]
        if actual != expected_version:
            raise StoreConflict(handle, expected_version, actual)
        version = next(self._versions)
        expires_at = None if self._ttl_seconds is None else self._clock() + self._ttl_seconds
        self._entries[handle] = (snapshot_json, version, expires_at)
        self._entries.move_to_end(handle)
        if self._max_entries is not None:
            while len(self._entries) > self._max_entries:
                self._entries.popitem(last=False)
        return version

    async def keys(self, prefix: str = "") -> AsyncIterator[str]:
        """Live keys starting with `prefix`."""
        for key in list(self._entries):
            entry = self._entries.get(key)
            if entry is None or not key.startswith(prefix):
                continue
            if entry[2] is not None and entry[2] <= self._clock():
                continue
            yield key

    async def delete(self, handle: str, expected_version: int | None = None) -> bool:
        """Delete `handle` (at `expected_version` when given)."""
        entry = self._live(handle)
        if entry is None:
            if expected_version is not None:
                raise StoreConflict(handle, expected_version, None)
            return False
        if expected_version is not None and entry[1] != expected_version:
            raise StoreConflict(handle, expected_version, entry[1])
        del self._entries[handle]
        return True


class StoreConflictLoop(Exception):
    """A record kept changing while a reader fired its timers (extreme contention): answered as CONFLICT."""
