"""Operating gated workflows: list, inspect, reset, force a state, delete.

Works on a gate (`gate.admin`) or on a bare store plus the workflow
(`GateAdmin.for_store(store, workflow)`, what `statekit gate ...` uses). Every write is a
compare-and-set on the version it read, so an admin action never silently overwrites a
transition that committed in between (it raises `StoreConflict`; run it again).

Repairs keep transition ids unique: a reset or forced record continues the step count
(from the old record, or from the store version when the old record is unreadable), so
an idempotency key handed out before the repair is never handed out again.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from statekit.engine import Machine, initial_transition, restore_snapshot
from statekit.gate.hooks import TransitionInfo
from statekit.gate.keys import WorkflowKey
from statekit.gate.record import AuditEntry, RecordDecoder, Timer, encode_record
from statekit.gate.store import CorruptRecord, StateStore
from statekit.gate.timers import apply_timer_actions

if TYPE_CHECKING:
    from statekit.gate.gate import Gate


class GateAdmin:
    """Admin operations on the workflows of one gate namespace in one store."""

    def __init__(self, gate: Gate) -> None:
        self._gate = gate
        self.store: StateStore = gate.store
        self.machine: Machine = gate.machine
        self.namespace = gate.namespace
        self._decoder = RecordDecoder(self.machine)

    @classmethod
    def for_store(
        cls,
        store: StateStore,
        workflow: Mapping[str, Any] | Machine,
        *,
        namespace: str | None = None,
    ) -> GateAdmin:
        """An admin on `store` for `workflow`, without a server (the CLI's entry point)."""
        from statekit.gate.gate import Gate

        return cls(Gate(workflow, store=store, namespace=namespace))

    def _store_key(self, key: str) -> str:
        """Accept `handle:abc` (within the namespace) or the full store key."""
        if key.startswith(self.namespace) and self.namespace:
            key = key[len(self.namespace) :]
        WorkflowKey.parse(key)
        return self.namespace + key

    async def keys(self, prefix: str = "") -> list[str]:
        """The workflow keys in this namespace (`handle:abc`, `session:...`), sorted."""
        lister = getattr(self.store, "keys", None)
        if lister is None:
            raise TypeError(f"{type(self.store).__name__} cannot list its keys")
        found = [key[len(self.namespace) :] async for key in lister(self.namespace + prefix)]
        return sorted(found)

    async def inspect(self, key: str) -> dict[str, Any] | None:
        """Everything stored for `key`: state, context, step, lease, timers, audit trail.

        None when absent. A corrupt record is reported (`"corrupt": reason`, `"raw"`), not raised.
        """
        store_key = self._store_key(key)
        loaded = await self.store.load(store_key)
        if loaded is None:
            return None
        text, version = loaded
        try:
            record = self._decoder.decode(store_key, text)
        except CorruptRecord as error:
            return {
                "key": store_key,
                "version": version,
                "corrupt": error.reason,
                "raw": text[:2000],
            }
        return {
            "key": store_key,
            "version": version,
            "state": record.snapshot.value,
            "status": record.snapshot.status,
            "context": record.snapshot.context,
            "step": record.step,
            "updatedAt": record.updated_at,
            "lease": None if record.lease is None else record.lease.to_json(),
            "timers": [timer.to_json() for timer in record.timers],
            "history": [entry.to_json() for entry in record.history],
        }

    async def _current(self, store_key: str) -> tuple[int | None, int, Any, list[AuditEntry]]:
        """(version, step, old state value, history) of the current record; tolerant of corruption."""
        loaded = await self.store.load(store_key)
        if loaded is None:
            return None, 0, None, []
        text, version = loaded
        try:
            record = self._decoder.decode(store_key, text)
        except CorruptRecord:
            # The version only grows by one per save, and each step took at least one save.
            return version, version, None, []
        return version, record.step, record.snapshot.value, list(record.history)

    async def _write(
        self, store_key: str, snapshot: Any, timers: tuple[Timer, ...], event: str
    ) -> dict[str, Any]:
        version, step, before, history = await self._current(store_key)
        if version is None and not store_key[len(self.namespace) :].startswith(
            ("handle:", "session:", "principal:", "server:")
        ):
            raise ValueError(f"{store_key!r} is not a workflow key")
        now = self._gate.clock()
        history.append(
            AuditEntry(before, snapshot.value, event, None, f"{store_key}#{step + 1}", now)
        )
        text, _record = encode_record(
            snapshot,
            None,
            step + 1,
            None,
            timers=timers,
            history=history[-self._gate.history_size :] if self._gate.history_size else [],
            now=now,
        )
        await self.store.save(store_key, text, version)
        # As TransitionInfo documents: an admin action is a transition with no tool.
        await self._gate._run_hooks(
            TransitionInfo(
                store_key, before, snapshot.value, event, None, f"{store_key}#{step + 1}", now
            )
        )
        result = await self.inspect(store_key)
        assert result is not None
        return result

    async def reset(self, key: str) -> dict[str, Any]:
        """Put `key` back in the workflow's initial state (context and timers too)."""
        store_key = self._store_key(key)
        snapshot, actions = initial_transition(self.machine, input=self._gate._workflow_input)
        timers = apply_timer_actions((), actions, self._gate.clock())
        return await self._write(store_key, snapshot, timers, "statekit.admin.reset")

    async def force(self, key: str, state: Any, *, context: Any = None) -> dict[str, Any]:
        """Put `key` in `state` (a state value: `"review"` or `{"checks": {...}}`), validated.

        The state must exist and be a complete configuration of this workflow. The
        context is kept (or replaced by `context`). Pending timers are dropped and the
        forced state's own `after` timers are not started: forcing skips entry actions.
        """
        store_key = self._store_key(key)
        current = await self.inspect(store_key)
        base_context = (
            context
            if context is not None
            else (current or {}).get("context", self._gate._initial_snapshot.context)
        )
        data = {**self._gate._initial_snapshot.to_json(), "value": state, "context": base_context}
        data["status"] = "active"
        try:
            snapshot = restore_snapshot(self.machine, data)
        except Exception as error:
            raise ValueError(
                f"{json.dumps(state)} is not a state of {self._gate.workflow_id!r}: {error}"
            ) from None
        if json.dumps(snapshot.value, sort_keys=True) != json.dumps(state, sort_keys=True):
            raise ValueError(
                f"{json.dumps(state)} is not a complete state of {self._gate.workflow_id!r}; "
                f"the full value would be {json.dumps(snapshot.value)}"
            )
        return await self._write(store_key, snapshot, (), "statekit.admin.force")

    async def delete(self, key: str) -> bool:
        """Forget `key` entirely; True if it existed. A deleted session starts over on its next call."""
        store_key = self._store_key(key)
        deleter = getattr(self.store, "delete", None)
        if deleter is None:
            raise TypeError(f"{type(self.store).__name__} cannot delete keys")
        return bool(await deleter(store_key))


def open_store(url: str, *, create: bool = False) -> StateStore:
    """A store from a URL: `sqlite:PATH` (or `sqlite:///PATH`) or `redis://HOST:PORT/DB`.

    Used by `statekit gate ...`; an in-memory store has nothing to administer from outside.
    An admin acts on a gate's existing store: unless `create` (`force`, which writes a record
    anyway), a SQLite path that is not one is refused before anything opens it (opening creates
    the file and the tables, so a mistyped path would leave an empty database behind and list
    nothing, as if the store were empty).
    """
    if url.startswith("sqlite:"):
        path = url.removeprefix("sqlite:")
        if path.startswith("///"):
            path = path[2:]
        from statekit.gate.sqlite_store import SQLiteStore

        if not create:
            _require_gate_database(path)
        return SQLiteStore(path)
    if url.startswith(("redis://", "rediss://", "unix://")):
        from statekit.gate.redis_store import RedisStore

        return RedisStore.from_url(url)
    raise ValueError(f"unknown store URL {url!r}: use sqlite:PATH or redis://HOST:PORT/DB")


def _require_gate_database(path: str) -> None:
    """Refuse (ValueError) a path that is not an existing SQLite file with the gate's table,
    reading it without writing anything."""
    import sqlite3
    from pathlib import Path
    from urllib.parse import quote

    if not Path(path).is_file():
        raise ValueError(f"no SQLite store at {path!r} (no such file): check the path; a gate's store "
                         "is made by the gate that writes it, not by `statekit gate`")
    try:
        connection = sqlite3.connect(f"file:{quote(str(Path(path).resolve()))}?mode=ro", uri=True)
        try:
            found = connection.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'statekit_gate_state'").fetchone()
        finally:
            connection.close()
    except sqlite3.Error as error:
        raise ValueError(f"{path!r} is not a usable SQLite database: {error}") from None
    if found is None:
        raise ValueError(f"{path!r} is a SQLite database but not a gate store (it has no statekit_gate_state table)")


async def run_admin(
    store_url: str,
    workflow: Mapping[str, Any],
    action: str,
    key: str | None = None,
    state: Any = None,
    *,
    namespace: str | None = None,
    prefix: str = "",
) -> Any:
    """One `statekit gate <action>` against the store at `store_url`; returns JSON-ready data."""
    store = open_store(store_url, create=action == "force")
    try:
        admin = GateAdmin.for_store(store, workflow, namespace=namespace)
        if action == "list":
            return await admin.keys(prefix)
        if key is None:
            raise ValueError(f"{action} needs a workflow key (e.g. handle:abc)")
        if action == "inspect":
            return await admin.inspect(key)
        if action == "reset":
            return await admin.reset(key)
        if action == "force":
            return await admin.force(key, state)
        if action == "delete":
            return {"deleted": await admin.delete(key)}
        raise ValueError(f"unknown action {action!r}")
    finally:
        closer = getattr(store, "aclose", None)
        if closer is not None:
            await closer()
        else:
            close = getattr(store, "close", None)
            if close is not None:
                close()
