"""Live machine handles behind the gate's compare-and-set store.

A handle is an unguessable capability (`lm_` + 128 random bits) that belongs to the principal
that started it: on a server with bearer tokens, each token's principal sees only its own
machines, and any other principal's handle is `not_found` exactly as an unknown one is. Without
authentication (stdio, the Python API, a loopback server with `--auth none`) there is one
principal.

Each call reads the record and its version, computes the new record with
`statekit.live.session`, and saves it only if the version is still the one read
(`OwnedStore.save`). When another agent saved first the call starts over from the newer
record, so two agents sending to one handle never interleave within a call: each call's events
run back to back on the snapshot the previous call left.

Guarantees, each kept in one place:

- **Atomic calls.** The save is a call's last step: everything that can refuse the call (the
  engine, the deadline, the output limit, the quota, the compare-and-set) runs before it, so an
  error answer commits nothing and a retry applies the events once.
- **Quotas.** The store checks the owner's live machines and bytes inside the compare-and-set
  (`Quota`), so concurrent calls and several servers on one store cannot pass it together;
  a refusal is `quota_exceeded`.
- **Reclaim.** Every save gives the record the machine's own TTL in the store: Redis expires it
  natively, and a sweep (`statekit.live.bridge`) deletes expired memory and SQLite records.

Engine work and store work are apart. Everything the engine does (building the machine,
starting it, stepping events, the snapshot's JSON) is one call of a module-level function of
`statekit.live.session` through the `compute` hook, `compute(function, *args)`, with JSON-like
arguments and result; by default it runs here, and a server may run it in a worker process.
Store reads and compare-and-set writes stay in this process, outside `compute`.
"""

from __future__ import annotations

import json
import logging
import secrets
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar

from statekit.analysis.simulate import normalize_events
from statekit.budget import check_result_size, current_budget
from statekit.errors import ToolError
from statekit.gate.store import OwnedStore, Quota, QuotaExceeded, StoreConflict, text_size
from statekit.live import session
from statekit.live.bridge import SWEEP_SECONDS, StoreBridge, quota_refusal, store_fault
from statekit.live.session import MachineLoader

DEFAULT_TTL_SECONDS = 3600
MAX_TTL_SECONDS = 7 * 24 * 3600
#: Times a call starts over after losing a compare-and-set race before it gives up.
MAX_RETRIES = 50
KEY_PREFIX = "statekit-live:"
#: The one principal of a server without authentication (and of records made before principals).
LOCAL_PRINCIPAL = "local"
_NOT_FOUND = "no live machine has this handle (unknown, stopped or expired)"

T = TypeVar("T")
logger = logging.getLogger(__name__)


class Compute(Protocol):
    """Runs `function(*args)` and returns its result: `function` is a module-level function of
    `statekit.live.session` whose arguments and result are picklable (JSON-like values and the
    loader). A server may run it in a worker process; a `ToolError` it raises is the answer."""

    def __call__(self, function: Callable[..., T], /, *args: Any) -> T: ...


def in_process(function: Callable[..., T], /, *args: Any) -> T:
    """The default `compute`: run the engine work here, in the calling thread."""
    return function(*args)


def _iso(epoch_seconds: float) -> str:
    return datetime.fromtimestamp(epoch_seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class LiveMachines:
    """start / send / get / stop on handles kept in `store`, per principal, under `quota`."""

    def __init__(self, store: OwnedStore, loader: MachineLoader, *,
                 clock: Callable[[], float] = time.time, compute: Compute = in_process,
                 quota: Quota | None = None, sweep_seconds: float | None = SWEEP_SECONDS) -> None:
        """`quota` applies to each principal (None: no quota; the tools pass the context's, whose
        defaults are `statekit serve`'s); `sweep_seconds` is how often expired records are swept
        from the store (None: never, for a store something else sweeps)."""
        if not isinstance(store, OwnedStore):
            raise TypeError("live machines need a store that keeps owners, quotas and expiry (OwnedStore): "
                            "MemoryStore, SQLiteStore or RedisStore")
        self.store = store
        self.quota = quota
        self._loader = loader
        self._clock = clock
        #: Where the engine work runs (`Compute`); settable until the first call.
        self.compute = compute
        self._bridge = StoreBridge()
        if sweep_seconds is not None:
            self._bridge.sweep(store.sweep_expired, sweep_seconds)

    def close(self) -> None:
        """Stop the sweep and the store thread."""
        self._bridge.close()

    # -- store access ------------------------------------------------------------------

    def _load(self, handle: str, owner: str) -> tuple[session.LiveRecord, int]:
        if not isinstance(handle, str) or not handle.startswith("lm_"):
            raise ToolError("not_found", _NOT_FOUND)
        stored = self._store_call(self.store.load(KEY_PREFIX + handle))
        if stored is None:
            raise ToolError("not_found", _NOT_FOUND)
        text, version = stored
        try:
            record = json.loads(text)
        except ValueError:
            raise ToolError("upstream_error", "the stored live machine is corrupted", {"retryable": False}) from None
        if not isinstance(record, dict) or record.get("stopped") or "snapshot" not in record:
            raise ToolError("not_found", _NOT_FOUND)
        if record.get("owner", LOCAL_PRINCIPAL) != owner:
            raise ToolError("not_found", _NOT_FOUND)  # another principal's: told nothing more than unknown
        if record.get("expiresAtEpoch", 0) <= self._clock():
            raise ToolError("not_found", "this live machine expired")
        record["owner"] = owner  # a record saved before owners were kept is the local principal's
        return record, version

    def _commit(self, handle: str, record: session.LiveRecord, version: int | None,
                answer: dict[str, Any]) -> None:
        """Save `record` as the call's last step, once nothing else can refuse the call: past its
        deadline, cancelled or over the output limit it commits nothing."""
        budget = current_budget()
        if budget is not None:
            budget.check(force=True)
        check_result_size(answer)
        text = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
        try:
            self._store_call(self.store.save(KEY_PREFIX + handle, text, version, owner=record["owner"],
                                             ttl_seconds=record["ttlSeconds"], quota=self.quota))
        except QuotaExceeded as error:
            # The operator's view: who hit which limit (a principal id is a hash, never a token).
            logger.info("live machines: %s refused at its %s quota (%s of %s)", error.owner, error.limit,
                        error.used, error.allowed)
            raise quota_refusal(error, text_size(text)) from None

    def _store_call(self, operation: Coroutine[Any, Any, T]) -> T:
        """Run a store operation; a store fault is a coded `upstream_error` (a conflict or a quota
        refusal stays what it is)."""
        try:
            return self._bridge.run(operation)
        except (StoreConflict, QuotaExceeded, ToolError):
            raise
        except Exception as error:
            raise store_fault(error) from None

    def _touch(self, record: session.LiveRecord) -> None:
        record["expiresAtEpoch"] = self._clock() + record["ttlSeconds"]

    # -- the operations ----------------------------------------------------------------

    def start(self, machine: Any, *, input_value: Any = None, guards: Mapping[str, bool] | None = None,
              ttl_seconds: float | None = None, principal: str | None = None) -> dict[str, Any]:
        """Start `machine` for `principal`; `{machineHandle, snapshot, actions, expiresAt, normalization}`."""
        ttl = DEFAULT_TTL_SECONDS if ttl_seconds is None else ttl_seconds
        if not 0 < ttl <= MAX_TTL_SECONDS:
            raise ToolError("invalid_input", f"ttlSeconds must be between 1 and {MAX_TTL_SECONDS}")
        definition = {"machine": machine, "input": input_value, "guards": dict(guards or {}),
                      "ttlSeconds": ttl}
        started = self.compute(session.start_machine, self._loader, definition)
        record = started["record"]
        record["owner"] = principal or LOCAL_PRINCIPAL
        self._touch(record)
        handle = "lm_" + secrets.token_urlsafe(16)
        answer = {"machineHandle": handle, "snapshot": started["snapshot"], "actions": started["actions"],
                  "expiresAt": _iso(record["expiresAtEpoch"]), "normalization": started["normalization"]}
        self._commit(handle, record, None, answer)
        return answer

    def send(self, handle: str, events: Sequence[Mapping[str, Any] | str], advance_ms: float = 0, *,
             principal: str | None = None) -> dict[str, Any]:
        """Events (`{type, ...payload}` or a bare type), then the clock: `{steps, snapshot, expiresAt, stopped}`."""
        normalized = normalize_events(list(events))
        if not 0 <= advance_ms <= session.MAX_ADVANCE_MS:
            raise ToolError("invalid_input", f"advanceMs must be between 0 and {session.MAX_ADVANCE_MS}")
        owner = principal or LOCAL_PRINCIPAL
        for _attempt in range(MAX_RETRIES):
            record, version = self._load(handle, owner)
            stepped = self.compute(session.send_events, self._loader, record, normalized, advance_ms)
            moved = stepped["record"]
            self._touch(moved)
            answer = {"steps": stepped["steps"], "snapshot": stepped["snapshot"], "clockMs": moved["clockMs"],
                      "expiresAt": _iso(moved["expiresAtEpoch"]), "stopped": stepped["stopped"]}
            try:
                self._commit(handle, moved, version, answer)
            except StoreConflict:
                budget = current_budget()
                if budget is not None:
                    budget.output_bytes = 0  # the replay's steps are charged afresh
                continue  # another call saved first: replay ours on its result
            return answer
        raise ToolError("conflict", f"the handle was changed by other calls {MAX_RETRIES} times in a row; retry",
                        {"retryable": True})

    def get(self, handle: str, *, principal: str | None = None) -> dict[str, Any]:
        """`{snapshot, enabledEvents, pendingTimers, expiresAt, clockMs, normalization}` (reads only)."""
        record, _version = self._load(handle, principal or LOCAL_PRINCIPAL)
        seen = self.compute(session.read_machine, self._loader, record)
        return {"snapshot": seen["snapshot"], "enabledEvents": seen["enabledEvents"],
                "pendingTimers": session.pending_timers(record), "clockMs": record["clockMs"],
                "expiresAt": _iso(record["expiresAtEpoch"]), "normalization": seen["normalization"]}

    def stop(self, handle: str, *, principal: str | None = None) -> dict[str, Any]:
        """Stop the machine and forget it: later calls on the handle are `not_found`."""
        for _attempt in range(MAX_RETRIES):
            record, version = self._load(handle, principal or LOCAL_PRINCIPAL)
            try:
                # Compare-and-delete: a call that saved in between makes us read again.
                self._store_call(self.store.delete(KEY_PREFIX + handle, version))
            except StoreConflict:
                continue
            return {"stopped": True, "value": record["snapshot"]["value"]}
        raise ToolError("conflict", "the handle kept changing; retry", {"retryable": True})
