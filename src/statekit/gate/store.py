"""The workflow state store: a versioned compare-and-set over opaque snapshot JSON.

Every store keeps, per handle, one JSON text and a version number. `save` only
succeeds when the caller names the version it read (`expected_version`), so two
writers that read the same version can never both win: the second gets
`StoreConflict`. That one rule is what lets several server processes share a
workflow without double side effects (see `statekit.gate.gate` for how the gate
uses it to reserve a transition before the tool handler runs).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
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


@runtime_checkable
class StateStore(Protocol):
    """Where workflow snapshots live between requests, with versioned compare-and-set."""

    async def load(self, handle: str) -> tuple[str, int] | None:
        """The stored JSON and its version, or None when the handle is unknown or expired."""
        ...

    async def save(self, handle: str, snapshot_json: str, expected_version: int | None) -> int:
        """Store `snapshot_json` if the current version is `expected_version` (None: absent).

        Returns the new version; raises `StoreConflict` when the version moved.
        """
        ...


class MemoryStore:
    """A single-process store: a dict guarded by the event loop (no awaits inside a save).

    Versions come from one store-wide counter, so a handle that expired and was
    created again never reuses a version an old reader might still hold.
    """

    #: Only this process can write it: the gate's per-key lock alone serialises
    #: transitions, so the gate skips the lease write (one store write per transition).
    process_local = True

    def __init__(
        self,
        *,
        ttl_seconds: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if ttl_seconds is not None and ttl_seconds <= 0:
            raise ValueError("ttl_seconds must be positive")
        self._ttl_seconds = ttl_seconds
        self._clock = clock
        self._entries: dict[str, tuple[str, int, float | None]] = {}
        self._versions = itertools.count(1)

    def _live(self, handle: str) -> tuple[str, int, float | None] | None:
        entry = self._entries.get(handle)
        if entry is None:
            return None
        expires_at = entry[2]
        if expires_at is not None and expires_at <= self._clock():
            del self._entries[handle]
            return None
        return entry

    async def load(self, handle: str) -> tuple[str, int] | None:
        """The stored JSON and its version, or None."""
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
        return version
