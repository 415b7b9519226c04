"""What the gate stores per workflow: the engine snapshot, `updatedAt`, and an optional lease.

The lease is how a transition is reserved before its tool handler runs: the gate
writes the record back with a lease (compare-and-set on the version it read),
runs the handler only if that write won, then commits the new snapshot (or
releases the lease) with another compare-and-set. A lease carries an expiry so a
process that dies mid-call does not freeze the workflow forever.
"""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import statekit


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
    def from_json(cls, data: dict[str, Any]) -> Lease:
        return cls(str(data["id"]), str(data["tool"]), str(data["event"]), float(data["expiresAt"]))


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

    def active_lease(self, now: float) -> Lease | None:
        """The lease, unless it expired (its holder is presumed dead)."""
        if self.lease is not None and self.lease.expires_at > now:
            return self.lease
        return None


def utc_now_iso() -> str:
    """The current time as an ISO 8601 UTC string with milliseconds, the `updatedAt` format."""
    now = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1000):03d}Z"


def snapshot_json_of(snapshot: Any) -> str:
    """A snapshot as the JSON text stored in records."""
    return json.dumps(snapshot.to_json(), separators=(",", ":"), sort_keys=True)


def encode_record(
    snapshot: Any, lease: Lease | None, step: int, snapshot_json: str | None = None
) -> tuple[str, Record]:
    """The JSON text a store keeps for one workflow, and the record it decodes to.

    `{"lease": ..., "snapshot": ..., "step": ..., "updatedAt": ...}`; pass
    `snapshot_json` when the snapshot's text is already known (re-saving a loaded
    snapshot with a lease).
    """
    snapshot_text = snapshot_json if snapshot_json is not None else snapshot_json_of(snapshot)
    updated_at = utc_now_iso()
    lease_text = (
        ""
        if lease is None
        else '"lease":' + json.dumps(lease.to_json(), separators=(",", ":")) + ","
    )
    text = (
        f'{{{lease_text}"snapshot":{snapshot_text},"step":{int(step)},"updatedAt":"{updated_at}"}}'
    )
    record = Record(
        snapshot=snapshot,
        updated_at=updated_at,
        lease=lease,
        snapshot_json=snapshot_text,
        step=step,
    )
    return text, record


class RecordDecoder:
    """Turns stored JSON back into records, remembering recent ones.

    Restoring a snapshot means rebuilding engine state; the same stored text
    always yields the same immutable snapshot, so an LRU keyed by the text
    skips that work for the hot handles without ever sharing mutable state.
    """

    def __init__(self, machine: Any, capacity: int = 1024) -> None:
        self._machine = machine
        self._capacity = capacity
        self._recent: OrderedDict[str, Record] = OrderedDict()

    def remember(self, text: str, record: Record) -> None:
        """Cache `record` as the decoding of `text` (the gate just wrote it, so no need to parse it back)."""
        self._recent[text] = record
        if len(self._recent) > self._capacity:
            self._recent.popitem(last=False)

    def decode(self, text: str) -> Record:
        """The record stored as `text`."""
        cached = self._recent.get(text)
        if cached is not None:
            self._recent.move_to_end(text)
            return cached
        data = json.loads(text)
        snapshot = statekit.restore_snapshot(self._machine, data["snapshot"])
        lease = Lease.from_json(data["lease"]) if data.get("lease") else None
        record = Record(
            snapshot=snapshot,
            updated_at=str(data.get("updatedAt", "")),
            lease=lease,
            snapshot_json=json.dumps(data["snapshot"], separators=(",", ":"), sort_keys=True),
            step=int(data.get("step", 0)),
        )
        self.remember(text, record)
        return record
