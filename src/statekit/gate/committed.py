"""What this process last committed per workflow, so its next transition can skip a read.

A transition on a shared store reads the record, then reserves it with a compare-and-set
on the version it read. When this process made the last commit to a workflow, it already
knows that record and version: it can reserve on them directly, and the compare-and-set
proves them current (another writer, a timer firing elsewhere, an admin repair or an expiry
makes it fail, and the call reads the store as usual). Only a call that would reserve uses
a remembered record; refusals and calls that write nothing always read the store, so no
answer is ever given from a record that may be stale. One round trip fewer per transition
on SQLite and Redis; a process-local store (the memory store) has nothing to skip.
"""

from __future__ import annotations

from collections import OrderedDict

from statekit.gate.record import Record

#: Workflows remembered per process (least recently committed forgotten first).
COMMITTED_RECORDS = 4096


class CommittedRecords:
    """The record and version of this process's last commit, per store key."""

    def __init__(self, capacity: int = COMMITTED_RECORDS) -> None:
        self._capacity = capacity
        self._by_key: OrderedDict[str, tuple[Record, int]] = OrderedDict()

    def get(self, store_key: str) -> tuple[Record, int] | None:
        return self._by_key.get(store_key)

    def put(self, store_key: str, record: Record, version: int) -> None:
        self._by_key[store_key] = (record, version)
        self._by_key.move_to_end(store_key)
        while len(self._by_key) > self._capacity:
            self._by_key.popitem(last=False)

    def forget(self, store_key: str) -> None:
        self._by_key.pop(store_key, None)
