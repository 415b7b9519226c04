"""Reading and writing a workflow's record: due timers fire on read, leases reserve a workflow."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from statekit.gate.hooks import TransitionInfo
from statekit.gate.keys import (
    WorkflowKey,
)
from statekit.gate.notices import GateNotices
from statekit.gate.record import (
    AuditEntry,
    Lease,
    Record,
    Timer,
    encode_record,
)
from statekit.gate.store import (
    StoreConflict,
    StoreConflictLoop,
    StoreError,
)
from statekit.gate.timers import FiredTimer, apply_timer_actions, fire_due

logger = logging.getLogger("statekit.gate")


@dataclass
class _Loaded:
    record: Record
    version: int | None
    fired: list[FiredTimer] = field(default_factory=list)
    #: The snapshot before the timers fired.
    before: Any = None


class GateState(GateNotices):
    """The workflow records in the store."""

    async def _notify_fired(self, ctx: Any, key: WorkflowKey, loaded: _Loaded) -> None:
        if not loaded.fired:
            return
        for fired in loaded.fired:
            await self._run_hooks(
                TransitionInfo(
                    self.store_key(key),
                    fired.source,
                    fired.target,
                    fired.event,
                    None,
                    f"{self.store_key(key)}#timer@{fired.due_at:.3f}",
                    self.clock(),
                )
            )
        if self.mode == "session" and self._bound_visible(loaded.before) != self._bound_visible(
            loaded.record.snapshot
        ):
            await self._notify_list_changed(ctx, key)

    async def _load(
        self, key: WorkflowKey, ctx: Any = None, *, holding_lock: bool = False
    ) -> _Loaded | None:
        """The key's record and version, with due timers fired; a key never saved starts at the initial state.

        Handles are the exception: they are minted by a creating tool, so an
        unknown one (guessed, mistyped or expired) is None, never a new workflow.
        Raises `StoreError` on a store fault or an unreadable record.
        """
        store_key = self.store_key(key)
        for _attempt in range(8):
            loaded = await self.store.load(store_key)
            if loaded is None:
                if key.kind == "handle":
                    return None
                if not self._initial_has_timers:
                    return _Loaded(self._initial_record(), None)
                # The initial state has `after` timers: they start counting now, so the
                # workflow must exist in the store from its first read.
                try:
                    text, record = self._encode(
                        self._initial_snapshot,
                        None,
                        0,
                        self._initial_json,
                        timers=apply_timer_actions((), self._initial_actions, self.clock()),
                        history=(),
                    )
                    version = await self.store.save(store_key, text, None)
                except StoreConflict:
                    continue
                self._decoder.remember(text, record)
                return _Loaded(record, version)
            text, version = loaded
            record = self._decoder.decode(store_key, text)
            due = record.next_due()
            now = self.clock()
            if due is None or due.due_at > now or record.active_lease(now) is not None:
                return _Loaded(record, version)
            if self._process_local_store and not holding_lock and self._locks.is_held(store_key):
                # A call of this process is moving the workflow without writing a lease
                # (the lock is its reservation): firing now would void its commit.
                return _Loaded(record, version)
            snapshot, timers, fired = fire_due(self.machine, record.snapshot, record.timers, now)
            history = list(record.history)
            step = record.step
            for item in fired:
                step += 1
                history.append(
                    AuditEntry(
                        item.source,
                        item.target,
                        item.event,
                        None,
                        f"{store_key}#{step}",
                        item.due_at,
                    )
                )
            try:
                text, new_record = self._encode(
                    snapshot, None, step, None, timers=timers, history=history
                )
                new_version = await self.store.save(store_key, text, version)
            except StoreConflict:
                # Another process fired (or moved) it first: read what it wrote.
                continue
            self._decoder.remember(text, new_record)
            result = _Loaded(new_record, new_version, fired, record.snapshot)
            await self._notify_fired(ctx, key, result)
            return result
        raise StoreConflictLoop(store_key)

    def _initial_record(self) -> Record:
        return Record(self._initial_snapshot, "", None, self._initial_json)

    def _encode(
        self,
        snapshot: Any,
        lease: Lease | None,
        step: int,
        snapshot_json: str | None,
        *,
        timers: Sequence[Timer],
        history: Sequence[AuditEntry],
    ) -> tuple[str, Record]:
        kept = list(history)[-self.history_size :] if self.history_size else []
        return encode_record(
            snapshot, lease, step, snapshot_json, timers=timers, history=kept, now=self.clock()
        )

    async def snapshot_of(
        self, *, handle: str | None = None, key: WorkflowKey | None = None
    ) -> Any:
        """The stored snapshot of a handle (or any workflow key), or None."""
        if (handle is None) == (key is None):
            raise ValueError("pass exactly one of handle= or key=")
        loaded = await self._load(key or WorkflowKey("handle", handle or ""))
        return None if loaded is None else loaded.record.snapshot

    async def _reserve(
        self, store_key: str, record: Record, version: int | None, tool: str, event: str
    ) -> int | None:
        """Write a lease on the loaded version; raises `StoreConflict` if another caller got there first."""
        if self._process_local_store:
            # Nothing outside this process can write the store, and the per-key lock is
            # held until the commit: the lock is the reservation, and a write would add nothing.
            return version
        lease = Lease(secrets.token_hex(8), tool, event, self.clock() + self.lease_seconds)
        text, saved = self._encode(
            record.snapshot,
            lease,
            record.step,
            record.snapshot_json,
            timers=record.timers,
            history=record.history,
        )
        new_version = await self.store.save(store_key, text, version)
        self._decoder.remember(text, saved)
        return new_version

    async def _release(self, store_key: str, record: Record, reserved_version: int | None) -> None:
        """Drop this call's lease, leaving the snapshot as it was."""
        if self._process_local_store:
            return
        self._committed.forget(store_key)  # the release writes a version of its own
        try:
            text, saved = self._encode(
                record.snapshot,
                None,
                record.step,
                record.snapshot_json,
                timers=record.timers,
                history=record.history,
            )
            await self.store.save(store_key, text, reserved_version)
            self._decoder.remember(text, saved)
        except StoreConflict:
            logger.warning("statekit.gate: lease on %s expired before it was released", store_key)
        except StoreError as error:
            logger.error(
                "statekit.gate: could not release the lease on %s (%s); it expires by itself",
                store_key,
                error,
            )
