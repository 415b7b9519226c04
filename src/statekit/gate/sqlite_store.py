"""A SQLite store (stdlib `sqlite3`): durable, and shared by processes on one host.

Each save runs in a `BEGIN IMMEDIATE` transaction, which takes SQLite's write
lock before reading the version, so the compare and the set are atomic across
processes. Calls are synchronous on purpose: a local SQLite write takes tens of
microseconds, less than handing it to a thread would cost. Under heavy
cross-process write contention a save can block the event loop for up to
`busy_timeout_ms` while it waits for the lock.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable

from statekit.gate.store import CorruptRecord, StoreConflict, StoreUnavailable

_SCHEMA = """
CREATE TABLE IF NOT EXISTS statekit_gate_state (
    handle TEXT PRIMARY KEY,
    snapshot TEXT NOT NULL,
    version INTEGER NOT NULL,
    expires_at REAL
)
"""


class SQLiteStore:
    """Versioned compare-and-set over one table; expired rows count as absent."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        ttl_seconds: float | None = None,
        busy_timeout_ms: int = 5000,
        synchronous: str = "NORMAL",
        clock: Callable[[], float] = time.time,
    ) -> None:
        if ttl_seconds is not None and ttl_seconds <= 0:
            raise ValueError("ttl_seconds must be positive")
        if synchronous not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError("synchronous must be OFF, NORMAL, FULL or EXTRA")
        self._ttl_seconds = ttl_seconds
        self._clock = clock
        # isolation_level=None: we issue BEGIN/COMMIT ourselves, so the write
        # lock is taken before the version is read.
        self._connection = sqlite3.connect(
            os.fspath(path), isolation_level=None, check_same_thread=False
        )
        self._connection.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        if os.fspath(path) != ":memory:":
            self._connection.execute("PRAGMA journal_mode = WAL")
            # In WAL mode NORMAL survives process crashes (not power loss) and skips an fsync
            # per commit; pass synchronous="FULL" when a power cut must not lose a transition.
            self._connection.execute(f"PRAGMA synchronous = {synchronous}")
        self._connection.execute(_SCHEMA)
        # sqlite3 connections are not safe for concurrent use from several threads.
        self._lock = threading.Lock()

    def _row(self, handle: str) -> tuple[str, int, float | None] | None:
        row = self._connection.execute(
            "SELECT snapshot, version, expires_at FROM statekit_gate_state WHERE handle = ?",
            (handle,),
        ).fetchone()
        if row is None:
            return None
        snapshot, version, expires_at = row
        if not isinstance(version, int):
            raise CorruptRecord(handle, f"the stored version {version!r} is not a number")
        try:
            expiry = None if expires_at is None else float(expires_at)
        except (TypeError, ValueError):
            raise CorruptRecord(
                handle, f"the stored expiry {expires_at!r} is not a number"
            ) from None
        return str(snapshot), version, expiry

    def _is_live(self, row: tuple[str, int, float | None] | None) -> bool:
        return row is not None and (row[2] is None or row[2] > self._clock())

    async def load(self, handle: str) -> tuple[str, int] | None:
        """The stored JSON and its version, or None when absent or expired."""
        with self._lock:
            try:
                row = self._row(handle)
            except sqlite3.Error as error:
                raise StoreUnavailable(handle, f"SQLite failed: {error}") from error
        if row is None or not self._is_live(row):
            return None
        return row[0], row[1]

    async def save(self, handle: str, snapshot_json: str, expected_version: int | None) -> int:
        """Compare-and-set inside one immediate transaction."""
        expires_at = None if self._ttl_seconds is None else self._clock() + self._ttl_seconds
        with self._lock:
            self._connection.execute("BEGIN IMMEDIATE")
            try:
                row = self._row(handle)
                live = self._is_live(row)
                actual = row[1] if row is not None and live else None
                if actual != expected_version:
                    raise StoreConflict(handle, expected_version, actual)
                # An expired row keeps counting up, so a recreated handle never
                # reuses a version that a slow reader may still hold.
                version = 1 if row is None else row[1] + 1
                self._connection.execute(
                    "INSERT INTO statekit_gate_state (handle, snapshot, version, expires_at) "
                    "VALUES (?, ?, ?, ?) ON CONFLICT(handle) DO UPDATE SET "
                    "snapshot = excluded.snapshot, version = excluded.version, "
                    "expires_at = excluded.expires_at",
                    (handle, snapshot_json, version, expires_at),
                )
                self._connection.execute("COMMIT")
            except sqlite3.Error as error:
                self._rollback()
                raise StoreUnavailable(handle, f"SQLite failed: {error}") from error
            except BaseException:
                self._rollback()
                raise
        return version

    def _rollback(self) -> None:
        if self._connection.in_transaction:
            self._connection.execute("ROLLBACK")

    async def keys(self, prefix: str = "") -> AsyncIterator[str]:
        """Live keys starting with `prefix`."""
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        with self._lock:
            try:
                rows = self._connection.execute(
                    "SELECT handle FROM statekit_gate_state WHERE handle LIKE ? ESCAPE '\\' "
                    "AND (expires_at IS NULL OR expires_at > ?)",
                    (escaped + "%", self._clock()),
                ).fetchall()
            except sqlite3.Error as error:
                raise StoreUnavailable(prefix or "*", f"SQLite failed: {error}") from error
        for (handle,) in rows:
            yield str(handle)

    async def delete(self, handle: str, expected_version: int | None = None) -> bool:
        """Delete `handle` (at `expected_version` when given) in one immediate transaction."""
        with self._lock:
            try:
                self._connection.execute("BEGIN IMMEDIATE")
                try:
                    row = self._connection.execute(
                        "SELECT version FROM statekit_gate_state WHERE handle = ?", (handle,)
                    ).fetchone()
                    actual = None if row is None else row[0]
                    if expected_version is not None and actual != expected_version:
                        raise StoreConflict(handle, expected_version, actual)
                    self._connection.execute(
                        "DELETE FROM statekit_gate_state WHERE handle = ?", (handle,)
                    )
                    self._connection.execute("COMMIT")
                except BaseException:
                    self._rollback()
                    raise
            except sqlite3.Error as error:
                raise StoreUnavailable(handle, f"SQLite failed: {error}") from error
        return row is not None

    def purge_expired(self) -> int:
        """Delete expired rows; returns how many were removed."""
        with self._lock:
            cursor = self._connection.execute(
                "DELETE FROM statekit_gate_state WHERE expires_at IS NOT NULL AND expires_at <= ?",
                (self._clock(),),
            )
            return cursor.rowcount

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            self._connection.close()
