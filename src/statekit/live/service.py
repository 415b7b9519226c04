"""Live machine handles behind the gate's compare-and-set store.

A handle is an unguessable capability (`lm_` + 128 random bits); whoever holds it can
step the machine. Each call reads the record and its version, computes the new record
with `statekit.live.session`, and saves it only if the version is still the one read
(`StateStore.save`). When another agent saved first the call starts over from the newer
record, so two agents sending to one handle never interleave within a call: each call's
events run back to back on the snapshot the previous call left.

The stores are asynchronous (the gate runs them on the server's event loop); tools run
synchronously, in the caller's thread or a server worker thread. `StoreBridge` runs every
store call on one private event loop thread, so a store and its client (a `redis.asyncio`
connection pool, a SQLite connection) only ever see that loop.

Engine work and store work are apart. Everything the engine does (building the machine,
starting it, stepping events, the snapshot's JSON) is one call of a module-level function of
`statekit.live.session` through the `compute` hook, `compute(function, *args)`, with JSON-like
arguments and result; by default it runs here, and a server may run it in a worker process.
Store reads and compare-and-set writes stay in this process, outside `compute`.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import threading
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar

from statekit.analysis.simulate import normalize_events
from statekit.errors import ToolError
from statekit.gate.store import ScanStore, StateStore, StoreConflict
from statekit.live import session
from statekit.live.session import MachineLoader

DEFAULT_TTL_SECONDS = 3600
MAX_TTL_SECONDS = 7 * 24 * 3600
#: Times a call starts over after losing a compare-and-set race before it gives up.
MAX_RETRIES = 50
#: Seconds one store call may take before the call fails (`upstream_timeout`).
STORE_TIMEOUT_SECONDS = 30.0
KEY_PREFIX = "statekit-live:"

T = TypeVar("T")


class Compute(Protocol):
    """Runs `function(*args)` and returns its result: `function` is a module-level function of
    `statekit.live.session` whose arguments and result are picklable (JSON-like values and the
    loader). A server may run it in a worker process; a `ToolError` it raises is the answer."""

    def __call__(self, function: Callable[..., T], /, *args: Any) -> T: ...


def in_process(function: Callable[..., T], /, *args: Any) -> T:
    """The default `compute`: run the engine work here, in the calling thread."""
    return function(*args)


class StoreBridge:
    """Runs store coroutines on one private event loop thread (started on first use)."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name="statekit-live-store", daemon=True)
                thread.start()
                self._loop = loop
            return self._loop

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        future = asyncio.run_coroutine_threadsafe(coroutine, self._running_loop())
        try:
            return future.result(STORE_TIMEOUT_SECONDS)
        except TimeoutError:  # concurrent.futures.TimeoutError is TimeoutError since 3.11
            future.cancel()
            raise ToolError("upstream_timeout", "the machine store did not answer in time",
                            {"retryable": True}) from None


def _iso(epoch_seconds: float) -> str:
    return datetime.fromtimestamp(epoch_seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class LiveMachines:
    """start / send / get / stop on handles kept in `store`."""

    def __init__(self, store: StateStore, loader: MachineLoader, *,
                 clock: Callable[[], float] = time.time, compute: Compute = in_process) -> None:
        self.store = store
        self._loader = loader
        self._clock = clock
        #: Where the engine work runs (`Compute`); settable until the first call.
        self.compute = compute
        self._bridge = StoreBridge()

    # -- store access ------------------------------------------------------------------

    def _load(self, handle: str) -> tuple[session.LiveRecord, int]:
        if not isinstance(handle, str) or not handle.startswith("lm_"):
            raise ToolError("not_found", "no live machine has this handle")
        stored = self._store_call(self.store.load(KEY_PREFIX + handle))
        if stored is None:
            raise ToolError("not_found", "no live machine has this handle (unknown, stopped or expired)")
        text, version = stored
        try:
            record = json.loads(text)
        except ValueError:
            raise ToolError("upstream_error", "the stored live machine is corrupted") from None
        if not isinstance(record, dict) or record.get("stopped") or "snapshot" not in record:
            raise ToolError("not_found", "no live machine has this handle (unknown, stopped or expired)")
        if record.get("expiresAtEpoch", 0) <= self._clock():
            raise ToolError("not_found", "this live machine expired")
        return record, version

    def _save(self, handle: str, record: session.LiveRecord, version: int | None) -> None:
        text = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
        self._store_call(self.store.save(KEY_PREFIX + handle, text, version))

    def _store_call(self, operation: Coroutine[Any, Any, T]) -> T:
        """Run a store operation; a store fault is a retryable `upstream_error` (a conflict stays one)."""
        try:
            return self._bridge.run(operation)
        except (StoreConflict, ToolError):
            raise
        except Exception as error:
            raise ToolError("upstream_error", f"the machine store failed ({type(error).__name__})",
                            {"retryable": True}) from None

    def _touch(self, record: session.LiveRecord) -> None:
        record["expiresAtEpoch"] = self._clock() + record["ttlSeconds"]

    # -- the operations ----------------------------------------------------------------

    def start(self, machine: Any, *, input_value: Any = None, guards: Mapping[str, bool] | None = None,
              ttl_seconds: float | None = None) -> dict[str, Any]:
        """Start `machine`; `{machineHandle, snapshot, actions, expiresAt, normalization}`."""
        ttl = DEFAULT_TTL_SECONDS if ttl_seconds is None else ttl_seconds
        if not 0 < ttl <= MAX_TTL_SECONDS:
            raise ToolError("invalid_input", f"ttlSeconds must be between 1 and {MAX_TTL_SECONDS}")
        definition = {"machine": machine, "input": input_value, "guards": dict(guards or {}),
                      "ttlSeconds": ttl}
        started = self.compute(session.start_machine, self._loader, definition)
        record = started["record"]
        self._touch(record)
        handle = "lm_" + secrets.token_urlsafe(16)
        self._save(handle, record, None)
        return {"machineHandle": handle, "snapshot": started["snapshot"], "actions": started["actions"],
                "expiresAt": _iso(record["expiresAtEpoch"]), "normalization": started["normalization"]}

    def send(self, handle: str, events: Sequence[Mapping[str, Any] | str], advance_ms: float = 0) -> dict[str, Any]:
        """Events (`{type, ...payload}` or a bare type), then the clock: `{steps, snapshot, expiresAt, stopped}`."""
        normalized = normalize_events(list(events))
        if not 0 <= advance_ms <= session.MAX_ADVANCE_MS:
            raise ToolError("invalid_input", f"advanceMs must be between 0 and {session.MAX_ADVANCE_MS}")
        for _attempt in range(MAX_RETRIES):
            record, version = self._load(handle)
            stepped = self.compute(session.send_events, self._loader, record, normalized, advance_ms)
            moved = stepped["record"]
            self._touch(moved)
            try:
                self._save(handle, moved, version)
            except StoreConflict:
                continue  # another call saved first: replay ours on its result
            return {"steps": stepped["steps"], "snapshot": stepped["snapshot"],
                    "clockMs": moved["clockMs"], "expiresAt": _iso(moved["expiresAtEpoch"]),
                    "stopped": stepped["stopped"]}
        raise ToolError("conflict", f"the handle was changed by other calls {MAX_RETRIES} times in a row; retry",
                        {"retryable": True})

    def get(self, handle: str) -> dict[str, Any]:
        """`{snapshot, enabledEvents, pendingTimers, expiresAt, clockMs, normalization}` (reads only)."""
        record, _version = self._load(handle)
        seen = self.compute(session.read_machine, self._loader, record)
        return {"snapshot": seen["snapshot"], "enabledEvents": seen["enabledEvents"],
                "pendingTimers": session.pending_timers(record), "clockMs": record["clockMs"],
                "expiresAt": _iso(record["expiresAtEpoch"]), "normalization": seen["normalization"]}

    def stop(self, handle: str) -> dict[str, Any]:
        """Stop the machine and forget it: later calls on the handle are `not_found`."""
        for _attempt in range(MAX_RETRIES):
            record, version = self._load(handle)
            try:
                if isinstance(self.store, ScanStore):
                    # Compare-and-delete: a call that saved in between makes us read again.
                    self._store_call(self.store.delete(KEY_PREFIX + handle, version))
                else:
                    # A store without delete keeps a tombstone until the record would have expired.
                    self._save(handle, {"stopped": True, "expiresAtEpoch": record["expiresAtEpoch"]}, version)
            except StoreConflict:
                continue
            return {"stopped": True, "value": record["snapshot"]["value"]}
        raise ToolError("conflict", "the handle kept changing; retry", {"retryable": True})
