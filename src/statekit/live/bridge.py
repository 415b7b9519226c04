"""The live machines' way to their store: one private event loop thread, coded store faults,
and the sweep that reclaims expired records.

The stores are asynchronous (the gate runs them on the server's event loop); tools run
synchronously, in the caller's thread or a server worker thread. `StoreBridge` runs every
store call on one private event loop thread, so a store and its client (a `redis.asyncio`
connection pool, a SQLite connection) only ever see that loop. The same loop runs the sweep:
every `sweep_seconds` it asks the store to delete a bounded batch of expired records (memory,
SQLite; Redis expires keys itself), and goes again at once while batches come back full.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from statekit.budget import seconds_left
from statekit.errors import ToolError
from statekit.gate.store import CorruptRecord, QuotaExceeded

logger = logging.getLogger(__name__)

#: Seconds one store call may take before the call fails (`upstream_timeout`).
STORE_TIMEOUT_SECONDS = 30.0
#: Seconds between two sweeps: an expired record is gone within this (plus one batch's work).
SWEEP_SECONDS = 30.0
#: Expired records one sweep deletes at most (the bound on one sweep's work).
SWEEP_BATCH = 1000

T = TypeVar("T")


class StoreBridge:
    """Runs store coroutines on one private event loop thread (started on first use)."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        self._sweeping: concurrent.futures.Future[None] | None = None

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name="statekit-live-store", daemon=True)
                thread.start()
                self._loop = loop
            return self._loop

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """The coroutine's result, waiting at most `STORE_TIMEOUT_SECONDS`, and never more than a
        second past the call's deadline: a call whose save is still in flight then answers
        `upstream_timeout` (its write may land) before the server gives up on it and answers
        `deadline_exceeded`, which promises that nothing was committed."""
        future = asyncio.run_coroutine_threadsafe(coroutine, self._running_loop())
        left = seconds_left()
        wait = STORE_TIMEOUT_SECONDS if left is None else min(STORE_TIMEOUT_SECONDS, left + 1.0)
        try:
            return future.result(wait)
        except TimeoutError:  # concurrent.futures.TimeoutError is TimeoutError since 3.11
            future.cancel()
            raise ToolError("upstream_timeout", "the machine store did not answer in time; a change this call "
                            "made may have been saved: read the machine before sending again",
                            {"retryable": True}) from None

    def sweep(self, sweep_once: Callable[[int], Awaitable[int]], every_seconds: float) -> None:
        """Start the periodic sweep on the loop (once; later calls do nothing)."""
        loop = self._running_loop()
        with self._lock:
            if self._sweeping is None:
                self._sweeping = asyncio.run_coroutine_threadsafe(_sweep_forever(sweep_once, every_seconds), loop)

    def close(self) -> None:
        """Stop the sweep and the loop thread (the bridge is not used afterwards)."""
        with self._lock:
            loop, self._loop = self._loop, None
            sweeping, self._sweeping = self._sweeping, None
        if loop is None:
            return
        if sweeping is not None:
            sweeping.cancel()
            # Let the loop run the cancellation before it stops (a pending task would be destroyed).
            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(asyncio.sleep(0), loop).result(STORE_TIMEOUT_SECONDS)
        loop.call_soon_threadsafe(loop.stop)


async def _sweep_forever(sweep_once: Callable[[int], Awaitable[int]], every_seconds: float) -> None:
    while True:
        try:
            removed = await sweep_once(SWEEP_BATCH)
        except Exception as error:  # a store fault: logged, and the next sweep tries again
            logger.warning("sweeping expired live machines failed: %s", type(error).__name__)
            removed = 0
        # A full batch means more are waiting: go on after letting the calls in between.
        await asyncio.sleep(0.01 if removed >= SWEEP_BATCH else every_seconds)


def store_fault(error: BaseException) -> ToolError:
    """The coded answer to a store's fault: `upstream_error` (retryable unless the store's data is
    damaged), never `internal_error`. The store's own words (a host and port, a file name) go to
    the server log only."""
    logger.warning("the live machine store failed: %s: %s", type(error).__name__, error)
    if isinstance(error, CorruptRecord):
        return ToolError("upstream_error", "the machine store's data is damaged: the server's operator must "
                         "repair or replace it", {"retryable": False})
    return ToolError("upstream_error", "the machine store is unavailable or failed; retry later",
                     {"retryable": True})


def quota_refusal(error: QuotaExceeded, size: int) -> ToolError:
    """`quota_exceeded`, saying what the caller can do about it."""
    details: dict[str, Any] = {"limit": error.limit, "used": error.used, "allowed": error.allowed,
                               "retryable": False}
    if error.limit == "records":
        message = (f"this caller already keeps {error.used} live machines, the most allowed ({error.allowed}): "
                   "stop one it no longer needs with stop_machine (or let one expire), or ask the server's "
                   "operator to raise --live-max-machines")
    elif error.limit == "bytes":
        message = (f"this caller's other live machines hold {error.used} bytes, and this one's {size} would pass "
                   f"its {error.allowed}-byte quota: stop machines it no longer needs with stop_machine, or ask "
                   "the server's operator to raise --live-max-bytes")
    else:
        message = ("the server's machine store is full of other callers' machines: try again later, or ask the "
                   "server's operator to raise its capacity")
        details["retryable"] = True
    return ToolError("quota_exceeded", message, details)
