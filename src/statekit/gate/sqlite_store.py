"""A SQLite store (stdlib `sqlite3`): durable, and shared by processes on one host.

Each save runs in a `BEGIN IMMEDIATE` transaction, which takes SQLite's write
lock before reading the version, so the compare and the set are atomic across
processes. Calls are synchronous on purpose: a local SQLite write takes tens of
microseconds, less than handing it to a thread would cost. Under heavy
cross-process write contention a save can block the event loop for up to
`busy_timeout_ms` while it waits for the lock.

Each row also keeps its owner and its size, so a per-owner quota is checked inside the same
transaction as the compare-and-set (no two processes can both pass it), and an index on the
expiry lets `sweep_expired` delete a bounded batch of expired rows. Triggers keep each
owner's totals over all its rows (`statekit_owner_usage`), whoever writes or deletes them, so
the check reads those totals and takes off only the owner's rows that expired and were not
swept yet (an index range): O(log n), not a scan of the owner's rows. A file that is not a
SQLite database (or is damaged) is `StoreUnavailable` from the first statement, never a raw
`sqlite3.DatabaseError`.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable

from statekit.gate.store import (
    CorruptRecord,
    Quota,
    QuotaExceeded,
    StoreConflict,
    StoreUnavailable,
    text_size,
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS statekit_gate_state (
    handle TEXT PRIMARY KEY,
    snapshot TEXT NOT NULL,
    version INTEGER NOT NULL,
    expires_at REAL,
    owner TEXT,
    size INTEGER
)
"""
_USAGE_TABLE = """
CREATE TABLE statekit_owner_usage (
    owner TEXT PRIMARY KEY,
    records INTEGER NOT NULL,
    bytes INTEGER NOT NULL
)
"""
_USAGE_TRIGGERS = (
    """CREATE TRIGGER IF NOT EXISTS statekit_usage_insert AFTER INSERT ON statekit_gate_state
    WHEN NEW.owner IS NOT NULL BEGIN
      INSERT INTO statekit_owner_usage (owner, records, bytes) VALUES (NEW.owner, 1, COALESCE(NEW.size, 0))
      ON CONFLICT(owner) DO UPDATE SET records = records + 1, bytes = bytes + COALESCE(NEW.size, 0);
    END""",
    """CREATE TRIGGER IF NOT EXISTS statekit_usage_delete AFTER DELETE ON statekit_gate_state
    WHEN OLD.owner IS NOT NULL BEGIN
      UPDATE statekit_owner_usage SET records = records - 1, bytes = bytes - COALESCE(OLD.size, 0)
      WHERE owner = OLD.owner;
    END""",
    """CREATE TRIGGER IF NOT EXISTS statekit_usage_update AFTER UPDATE OF owner, size ON statekit_gate_state
    BEGIN
      UPDATE statekit_owner_usage SET records = records - 1, bytes = bytes - COALESCE(OLD.size, 0)
      WHERE OLD.owner IS NOT NULL AND owner = OLD.owner;
      INSERT INTO statekit_owner_usage (owner, records, bytes)
      SELECT NEW.owner, 1, COALESCE(NEW.size, 0) WHERE NEW.owner IS NOT NULL
      ON CONFLICT(owner) DO UPDATE SET records = records + 1, bytes = bytes + COALESCE(NEW.size, 0);
    END""",
)
#: Columns added after the first release: a file made by an older version gains them.
_ADDED_COLUMNS = (("owner", "TEXT"), ("size", "INTEGER"))
_INDEXES = (
    "CREATE INDEX IF NOT EXISTS statekit_gate_state_owner_expiry ON statekit_gate_state (owner, expires_at) "
    "WHERE owner IS NOT NULL",
    "CREATE INDEX IF NOT EXISTS statekit_gate_state_expiry ON statekit_gate_state (expires_at) "
    "WHERE expires_at IS NOT NULL",
)


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
        try:
            self._prepare(os.fspath(path), busy_timeout_ms, synchronous)
        except sqlite3.OperationalError as error:  # locked, read-only, cannot open: may pass
            self._connection.close()
            raise StoreUnavailable(os.fspath(path), f"SQLite cannot use this file: {error}") from None
        except sqlite3.Error as error:  # not a database, or a damaged one: retrying cannot help
            self._connection.close()
            raise CorruptRecord(os.fspath(path), f"the file is not a usable SQLite database: {error}") from None
        # sqlite3 connections are not safe for concurrent use from several threads.
        self._lock = threading.Lock()

    def _prepare(self, path: str, busy_timeout_ms: int, synchronous: str) -> None:
        self._connection.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        if path != ":memory:":
            self._connection.execute("PRAGMA journal_mode = WAL")
            # In WAL mode NORMAL survives process crashes (not power loss) and skips an fsync
            # per commit; pass synchronous="FULL" when a power cut must not lose a transition.
            self._connection.execute(f"PRAGMA synchronous = {synchronous}")
        self._connection.execute(_SCHEMA)
        present = {row[1] for row in self._connection.execute("PRAGMA table_info(statekit_gate_state)")}
        for column, kind in _ADDED_COLUMNS:
            if column not in present:
                try:
                    self._connection.execute(f"ALTER TABLE statekit_gate_state ADD COLUMN {column} {kind}")
                except sqlite3.OperationalError as error:
                    if "duplicate column" not in str(error):  # another process added it first
                        raise
        for statement in _INDEXES:
            self._connection.execute(statement)
        self._prepare_usage()

    def _prepare_usage(self) -> None:
        """The per-owner totals and the triggers that keep them, made once per file (from the rows
        already there, in one transaction so no write slips between)."""
        self._connection.execute("BEGIN IMMEDIATE")
        try:
            made = self._connection.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'statekit_owner_usage'").fetchone()
            if made is None:
                self._connection.execute(_USAGE_TABLE)
                self._connection.execute(
                    "INSERT INTO statekit_owner_usage (owner, records, bytes) SELECT owner, COUNT(*), "
                    "COALESCE(SUM(size), 0) FROM statekit_gate_state WHERE owner IS NOT NULL GROUP BY owner")
            for trigger in _USAGE_TRIGGERS:
                self._connection.execute(trigger)
            self._connection.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise

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

    async def save(self, handle: str, snapshot_json: str, expected_version: int | None, *,
                   owner: str | None = None, ttl_seconds: float | None = None,
                   quota: Quota | None = None) -> int:
        """Compare-and-set (and the owner's quota) inside one immediate transaction."""
        ttl = ttl_seconds if ttl_seconds is not None else self._ttl_seconds
        now = self._clock()
        expires_at = None if ttl is None else now + ttl
        size = text_size(snapshot_json)
        with self._lock:
            try:
                self._connection.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as error:
                raise StoreUnavailable(handle, f"SQLite failed: {error}") from error
            try:
                row = self._row(handle)
                live = self._is_live(row)
                actual = row[1] if row is not None and live else None
                if actual != expected_version:
                    raise StoreConflict(handle, expected_version, actual)
                if quota is not None:
                    self._check_quota(handle, owner, size, quota, now, live)
                # An expired row keeps counting up, so a recreated handle never
                # reuses a version that a slow reader may still hold.
                version = 1 if row is None else row[1] + 1
                self._connection.execute(
                    "INSERT INTO statekit_gate_state (handle, snapshot, version, expires_at, owner, size) "
                    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(handle) DO UPDATE SET "
                    "snapshot = excluded.snapshot, version = excluded.version, "
                    "expires_at = excluded.expires_at, owner = excluded.owner, size = excluded.size",
                    (handle, snapshot_json, version, expires_at, owner, size),
                )
                self._connection.execute("COMMIT")
            except sqlite3.Error as error:
                self._rollback()
                raise StoreUnavailable(handle, f"SQLite failed: {error}") from error
            except BaseException:
                self._rollback()
                raise
        return version

    def _check_quota(self, handle: str, owner: str | None, size: int, quota: Quota, now: float,
                     live: bool) -> None:
        """Inside the save's transaction: refuse a save that takes `owner` over `quota`."""
        before = None
        if live:
            before = self._connection.execute(
                "SELECT owner, size FROM statekit_gate_state WHERE handle = ?", (handle,)).fetchone()
            if before is not None and before[0] == owner and before[1] is not None and size <= before[1]:
                return  # not growing: never refused
        records, used = self._live_usage(owner, now)
        if before is not None and before[0] == owner:  # this record's old self does not count
            records, used = records - 1, used - (before[1] or 0)
        if quota.max_records is not None and records + 1 > quota.max_records:
            raise QuotaExceeded(owner, "records", records, quota.max_records)
        if quota.max_bytes is not None and used + size > quota.max_bytes:
            raise QuotaExceeded(owner, "bytes", used, quota.max_bytes)

    def _live_usage(self, owner: str | None, now: float) -> tuple[int, int]:
        """The owner's totals less its rows that have expired and wait for the sweep."""
        if owner is None:
            return 0, 0
        held = self._connection.execute(
            "SELECT records, bytes FROM statekit_owner_usage WHERE owner = ?", (owner,)).fetchone()
        if held is None:
            return 0, 0
        expired, expired_bytes = self._connection.execute(
            "SELECT COUNT(*), COALESCE(SUM(size), 0) FROM statekit_gate_state WHERE owner = ? "
            "AND expires_at <= ?", (owner, now)).fetchone()
        return int(held[0]) - int(expired), int(held[1]) - int(expired_bytes)

    async def usage(self, owner: str | None) -> tuple[int, int]:
        """How many live records `owner` keeps and their bytes (records without an owner: not counted)."""
        with self._lock:
            try:
                return self._live_usage(owner, self._clock())
            except sqlite3.Error as error:
                raise StoreUnavailable(owner or "*", f"SQLite failed: {error}") from error

    async def sweep_expired(self, limit: int) -> int:
        """Delete at most `limit` expired rows (by the expiry index, soonest first)."""
        return self.purge_expired(limit)

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

    def purge_expired(self, limit: int | None = None) -> int:
        """Delete expired rows (at most `limit`, soonest expired first); returns how many were removed."""
        with self._lock:
            try:
                if limit is None:
                    cursor = self._connection.execute(
                        "DELETE FROM statekit_gate_state WHERE expires_at IS NOT NULL AND expires_at <= ?",
                        (self._clock(),),
                    )
                else:
                    cursor = self._connection.execute(
                        "DELETE FROM statekit_gate_state WHERE rowid IN (SELECT rowid FROM statekit_gate_state "
                        "WHERE expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at LIMIT ?)",
                        (self._clock(), int(limit)),
                    )
            except sqlite3.Error as error:
                raise StoreUnavailable("*", f"SQLite failed: {error}") from error
            return cursor.rowcount

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            self._connection.close()
