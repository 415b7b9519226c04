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

import heapq
import itertools
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable


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

@dataclass(frozen=True)
class Quota:
    """What one owner may keep in a store: live records and their bytes (None: no limit)."""

    max_records: int | None = None
    max_bytes: int | None = None


QuotaLimit = Literal["records", "bytes", "capacity"]


class QuotaExceeded(Exception):
    """A save would take its owner over `limit` (records, bytes), or the store is full of other
    owners' records (capacity): nothing was written."""

    def __init__(self, owner: str | None, limit: QuotaLimit, used: int, allowed: int) -> None:
        super().__init__(f"{owner!r} is at its {limit} limit ({used} of {allowed})")
        self.owner = owner
        self.limit = limit
        self.used = used
        self.allowed = allowed


@runtime_checkable
class OwnedStore(ScanStore, Protocol):
    """A store that keeps an owner, a size and an expiry per record, enforces per-owner quotas in
    the same atomic step as the compare-and-set, and reclaims expired records (what live machines
    need: memory, SQLite and Redis all are)."""

    async def save(self, handle: str, snapshot_json: str, expected_version: int | None, *,
                   owner: str | None = None, ttl_seconds: float | None = None,
                   quota: Quota | None = None) -> int:
        """`StateStore.save`, and: the record belongs to `owner`, expires `ttl_seconds` from now
        (instead of the store's TTL), and is refused with `QuotaExceeded` when it would take
        `owner`'s live records over `quota` (a save that does not grow the owner's use never is)."""
        ...

    async def usage(self, owner: str | None) -> tuple[int, int]:
        """How many live records `owner` keeps and their bytes."""
        ...

    async def sweep_expired(self, limit: int) -> int:
        """Delete at most `limit` expired records, doing at most `limit` units of work; returns
        the work done: `limit` means more may be waiting (native expiry: 0)."""
        ...


def text_size(text: str) -> int:
    """A record's size as quotas count it: its UTF-8 bytes."""
    return len(text.encode("utf-8", "surrogatepass"))


@dataclass
class _Entry:
    text: str
    version: int
    expires_at: float | None
    owner: str | None
    size: int


class MemoryStore:
    """A single-process store: a dict guarded by the event loop (no awaits inside a save).

    Versions come from one store-wide counter, so a key that expired and was
    created again never reuses a version an old reader might still hold.
    `max_entries` bounds memory: when the store is full, an expired record goes
    first, then the least recently used record of the owner who is saving (an
    evicted session starts over, an evicted handle is NOT_FOUND); one owner never
    evicts another's records, and when the saver has none to give up the save is
    refused (`QuotaExceeded`, "capacity"). `sweep_expired` reclaims expired
    records, soonest first, from a heap of expiry times.
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
        self._entries: dict[str, _Entry] = {}
        #: Each owner's keys, least recently used first (eviction takes only from the saver's own).
        self._owned: dict[str | None, OrderedDict[str, None]] = {}
        self._bytes: dict[str | None, int] = {}
        #: (expires_at, version, key) per save; stale items are skipped when popped.
        self._expiries: list[tuple[float, int, str]] = []
        self._versions = itertools.count(1)

    # -- bookkeeping: every change of an entry goes through _put or _drop -------------------

    def _put(self, handle: str, entry: _Entry) -> None:
        self._drop(handle)
        self._entries[handle] = entry
        self._owned.setdefault(entry.owner, OrderedDict())[handle] = None
        self._bytes[entry.owner] = self._bytes.get(entry.owner, 0) + entry.size
        if entry.expires_at is not None:
            heapq.heappush(self._expiries, (entry.expires_at, entry.version, handle))
            if len(self._expiries) > 2 * len(self._entries) + 1024:
                self._rebuild_expiries()

    def _drop(self, handle: str) -> _Entry | None:
        entry = self._entries.pop(handle, None)
        if entry is None:
            return None
        owned = self._owned[entry.owner]
        del owned[handle]
        self._bytes[entry.owner] -= entry.size
        if not owned:
            del self._owned[entry.owner], self._bytes[entry.owner]
        return entry

    def _rebuild_expiries(self) -> None:
        self._expiries = [(entry.expires_at, entry.version, key) for key, entry in self._entries.items()
                          if entry.expires_at is not None]
        heapq.heapify(self._expiries)

    def _expired(self, entry: _Entry, now: float | None = None) -> bool:
        return entry.expires_at is not None and entry.expires_at <= (self._clock() if now is None else now)

    def _live(self, handle: str) -> _Entry | None:
        entry = self._entries.get(handle)
        if entry is None:
            return None
        if self._expired(entry):
            self._drop(handle)
            return None
        self._owned[entry.owner].move_to_end(handle)
        return entry

    def __len__(self) -> int:
        return len(self._entries)

    async def load(self, handle: str) -> tuple[str, int] | None:
        """The stored text and its version, or None."""
        entry = self._live(handle)
        return None if entry is None else (entry.text, entry.version)

    async def save(self, handle: str, snapshot_json: str, expected_version: int | None, *,
                   owner: str | None = None, ttl_seconds: float | None = None,
                   quota: Quota | None = None) -> int:
        """Compare-and-set; the check, the quota and the write happen without yielding to the loop."""
        entry = self._live(handle)
        actual = None if entry is None else entry.version
        if actual != expected_version:
            raise StoreConflict(handle, expected_version, actual)
        size = text_size(snapshot_json)
        if quota is not None:
            self._check_quota(handle, entry, owner, size, quota)
        if entry is None and self._max_entries is not None and len(self._entries) >= self._max_entries:
            self._make_room(owner)
        ttl = ttl_seconds if ttl_seconds is not None else self._ttl_seconds
        version = next(self._versions)
        self._put(handle, _Entry(snapshot_json, version, None if ttl is None else self._clock() + ttl, owner, size))
        return version

    def _check_quota(self, handle: str, entry: _Entry | None, owner: str | None, size: int, quota: Quota) -> None:
        same_owner = entry is not None and entry.owner == owner
        if same_owner and entry is not None and size <= entry.size:
            return  # not growing: never refused
        for pruned in (False, True):
            if pruned:  # over: the owner's expired records (not yet swept) do not count
                self._drop_expired_of(owner)
            records = len(self._owned.get(owner, ())) + (0 if same_owner else 1)
            used = self._bytes.get(owner, 0) - (entry.size if same_owner and entry is not None else 0)
            if quota.max_records is not None and records > quota.max_records:
                refusal = QuotaExceeded(owner, "records", records - 1, quota.max_records)
            elif quota.max_bytes is not None and used + size > quota.max_bytes:
                refusal = QuotaExceeded(owner, "bytes", used, quota.max_bytes)
            else:
                return
        raise refusal

    def _drop_expired_of(self, owner: str | None) -> None:
        now = self._clock()
        for key in [key for key in self._owned.get(owner, ()) if self._expired(self._entries[key], now)]:
            self._drop(key)

    def _make_room(self, owner: str | None) -> None:
        """Free one slot: an expired record, else the saver's own least recently used one."""
        if self._sweep(len(self._expiries))[0]:
            return
        owned = self._owned.get(owner)
        if not owned:
            raise QuotaExceeded(owner, "capacity", len(self._entries), self._max_entries or 0)
        self._drop(next(iter(owned)))

    def _sweep(self, limit: int) -> tuple[int, int]:
        """Pop at most `limit` due expiry entries (a record saved again left a stale one behind):
        (records deleted, entries popped)."""
        now = self._clock()
        removed = popped = 0
        while self._expiries and popped < limit and self._expiries[0][0] <= now:
            _expires, version, key = heapq.heappop(self._expiries)
            popped += 1
            entry = self._entries.get(key)
            if entry is not None and entry.version == version and self._expired(entry, now):
                self._drop(key)
                removed += 1
        return removed, popped

    async def sweep_expired(self, limit: int) -> int:
        """Delete expired records, soonest expired first, looking at most at `limit` expiry
        entries; returns how many it looked at (`limit`: more may be waiting)."""
        return self._sweep(limit)[1]

    async def usage(self, owner: str | None) -> tuple[int, int]:
        """How many live records `owner` keeps and their bytes."""
        self._drop_expired_of(owner)
        return len(self._owned.get(owner, ())), self._bytes.get(owner, 0)

    async def keys(self, prefix: str = "") -> AsyncIterator[str]:
        """Live keys starting with `prefix`."""
        now = self._clock()
        for key in list(self._entries):
            entry = self._entries.get(key)
            if entry is None or not key.startswith(prefix) or self._expired(entry, now):
                continue
            yield key

    async def delete(self, handle: str, expected_version: int | None = None) -> bool:
        """Delete `handle` (at `expected_version` when given)."""
        entry = self._live(handle)
        if entry is None:
            if expected_version is not None:
                raise StoreConflict(handle, expected_version, None)
            return False
        if expected_version is not None and entry.version != expected_version:
            raise StoreConflict(handle, expected_version, entry.version)
        self._drop(handle)
        return True


class StoreConflictLoop(Exception):
    """A record kept changing while a reader fired its timers (extreme contention): answered as CONFLICT."""
