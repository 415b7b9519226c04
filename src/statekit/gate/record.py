"""What the gate stores per workflow: the engine snapshot, pending timers, an audit trail, a lease.

The lease is how a transition is reserved before its tool handler runs: the gate
writes the record back with a lease (compare-and-set on the version it read),
runs the handler only if that write won, then commits the new snapshot (or
releases the lease) with another compare-and-set. A lease carries an expiry so a
process that dies mid-call does not freeze the workflow forever.

Timers are the workflow's pending delayed events (`after` transitions): XState
schedules them as delayed `raise` actions; the gate keeps them in the record,
with their due time on the wall clock, so any process can fire them.
"""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from statekit.engine import Machine, restore_snapshot
from statekit.gate.store import CorruptRecord


@dataclass(frozen=True)
class Lease:
    """A transition reserved by one call: which tool, which event, until when (epoch seconds)."""

    lease_id: str
    tool: str
    event: str
    expires_at: float

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.lease_id,
            "tool": self.tool,
            "event": self.event,
            "expiresAt": self.expires_at,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Lease:
        return cls(str(data["id"]), str(data["tool"]), str(data["event"]), float(data["expiresAt"]))


@dataclass(frozen=True)
class Timer:
    """A pending delayed event, kept by XState's scheduler rules (`statekit.engine.scheduler`)."""

    #: The send id (an `after` transition's is its event type); None: the raise had none.
    send_id: str | None
    event: Mapping[str, Any]
    due_at: float
    #: Scheduling order, the tie-break between timers due at the same time (as in XState).
    sequence: int
    #: Whether the scheduler's entry for `send_id` still names this timer (what a cancel clears):
    #: False once a later timer took the id, or a timer of that id fired.
    named: bool = True

    def to_json(self) -> dict[str, Any]:
        data = {
            "id": self.send_id,
            "event": dict(self.event),
            "dueAt": self.due_at,
            "seq": self.sequence,
        }
        if not self.named:
            data["named"] = False
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Timer:
        event = data["event"]
        if not isinstance(event, Mapping) or not isinstance(event.get("type"), str):
            raise ValueError("a timer's event needs a string type")
        send_id = data["id"]
        return cls(None if send_id is None else str(send_id), dict(event), float(data["dueAt"]), int(data["seq"]),
                   data.get("named", True) is not False)


@dataclass(frozen=True)
class AuditEntry:
    """One committed transition, as kept in the record's audit trail."""

    source: Any
    target: Any
    event: str
    tool: str | None
    transition_id: str
    at: float

    def to_json(self) -> dict[str, Any]:
        return {
            "from": self.source,
            "to": self.target,
            "event": self.event,
            "tool": self.tool,
            "transitionId": self.transition_id,
            "at": self.at,
        }

    @cached_property
    def json_text(self) -> str:
        """`to_json()` as compact JSON, made once: a record re-saves its whole trail on every commit."""
        return _compact(self.to_json())

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> AuditEntry:
        tool = data.get("tool")
        return cls(
            data.get("from"),
            data.get("to"),
            str(data["event"]),
            None if tool is None else str(tool),
            str(data["transitionId"]),
            float(data["at"]),
        )


@dataclass(frozen=True)
class Record:
    """A decoded store entry. `snapshot` is an engine snapshot (immutable, safe to share)."""

    snapshot: Any
    updated_at: str
    lease: Lease | None
    #: `snapshot.to_json()` as JSON text, kept so re-saving the same snapshot (a lease) skips it.
    snapshot_json: str
    #: How many transitions were committed so far; a lease does not change it.
    step: int = 0
    timers: tuple[Timer, ...] = ()
    history: tuple[AuditEntry, ...] = field(default=())

    def active_lease(self, now: float) -> Lease | None:
        """The lease, unless it expired (its holder is presumed dead)."""
        if self.lease is not None and self.lease.expires_at > now:
            return self.lease
        return None

    def next_due(self) -> Timer | None:
        """The timer that fires first (earliest due, then earliest scheduled), if any."""
        if not self.timers:
            return None
        return min(self.timers, key=lambda timer: (timer.due_at, timer.sequence))


def utc_iso(now: float) -> str:
    """An epoch time as ISO 8601 UTC with milliseconds, the `updatedAt` format."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1000):03d}Z"


def snapshot_json_of(snapshot: Any) -> str:
    """A snapshot as the JSON text stored in records."""
    return json.dumps(snapshot.to_json(), separators=(",", ":"), sort_keys=True)


def encode_record(
    snapshot: Any,
    lease: Lease | None,
    step: int,
    snapshot_json: str | None = None,
    *,
    timers: Sequence[Timer] = (),
    history: Sequence[AuditEntry] = (),
    now: float | None = None,
) -> tuple[str, Record]:
    """The JSON text a store keeps for one workflow, and the record it decodes to.

    `{"history": [...], "lease": ..., "snapshot": ..., "step": ..., "timers": [...],
    "updatedAt": ...}`; pass `snapshot_json` when the snapshot's text is already
    known (re-saving a loaded snapshot with a lease).
    """
    snapshot_text = snapshot_json if snapshot_json is not None else snapshot_json_of(snapshot)
    updated_at = utc_iso(time.time() if now is None else now)
    parts = []
    if history:
        parts.append('"history":[' + ",".join(entry.json_text for entry in history) + "]")
    if lease is not None:
        parts.append('"lease":' + _compact(lease.to_json()))
    parts.append(f'"snapshot":{snapshot_text}')
    parts.append(f'"step":{int(step)}')
    if timers:
        parts.append('"timers":' + _compact([timer.to_json() for timer in timers]))
    parts.append(f'"updatedAt":"{updated_at}"')
    text = "{" + ",".join(parts) + "}"
    record = Record(
        snapshot=snapshot,
        updated_at=updated_at,
        lease=lease,
        snapshot_json=snapshot_text,
        step=step,
        timers=tuple(timers),
        history=tuple(history),
    )
    return text, record


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True, default=str)


class RecordDecoder:
    """Turns stored JSON back into records, remembering recent ones.

    Restoring a snapshot means rebuilding engine state; the same stored text
    always yields the same immutable snapshot, so an LRU keyed by the text
    skips that work for the hot handles without ever sharing mutable state.
    Anything that does not decode to a record of this machine raises
    `CorruptRecord` naming the key.
    """

    def __init__(self, machine: Machine, capacity: int = 1024) -> None:
        self._machine = machine
        self._capacity = capacity
        self._recent: OrderedDict[str, Record] = OrderedDict()

    def remember(self, text: str, record: Record) -> None:
        """Cache `record` as the decoding of `text` (the gate just wrote it, so no need to parse it back)."""
        self._recent[text] = record
        if len(self._recent) > self._capacity:
            self._recent.popitem(last=False)

    def decode(self, key: str, text: str) -> Record:
        """The record stored as `text` under `key`; raises `CorruptRecord` when it is not one."""
        cached = self._recent.get(text)
        if cached is not None:
            self._recent.move_to_end(text)
            return cached
        try:
            data = json.loads(text)
        except ValueError as error:
            raise CorruptRecord(key, f"the record is not JSON ({error})") from None
        if not isinstance(data, dict) or not isinstance(data.get("snapshot"), dict):
            raise CorruptRecord(key, "the record has no snapshot object")
        try:
            snapshot = restore_snapshot(self._machine, data["snapshot"])
        except Exception as error:  # any failure to restore means the record is unusable
            raise CorruptRecord(key, f"the snapshot does not fit this workflow: {error}") from None
        try:
            lease = Lease.from_json(data["lease"]) if data.get("lease") else None
            timers = tuple(Timer.from_json(item) for item in data.get("timers") or ())
            history = tuple(AuditEntry.from_json(item) for item in data.get("history") or ())
            step = data.get("step", 0)
            if not isinstance(step, int) or isinstance(step, bool) or step < 0:
                raise ValueError(f"step {step!r} is not a count")
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise CorruptRecord(key, f"the record is malformed: {error}") from None
        record = Record(
            snapshot=snapshot,
            updated_at=str(data.get("updatedAt", "")),
            lease=lease,
            snapshot_json=json.dumps(data["snapshot"], separators=(",", ":"), sort_keys=True),
            step=step,
            timers=timers,
            history=history,
        )
        self.remember(text, record)
        return record
