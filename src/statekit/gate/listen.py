"""`subscriptions/listen` for gated lists (2026-07-28): tell only the clients whose list changed.

The SDK's `ListenHandler` fans every event out to every stream. A gated list
varies by workflow key (the authenticated principal, or the server-wide
fallback), so a stream is opened on the bus of the key its own request
resolves to, and the gate publishes `ToolsListChanged` on that key's bus only.

Events the rest of the server publishes on its own bus (an `MCPServer`'s
`ctx.notify_resources_changed()`, ...) still reach every stream: each key's bus
also relays the server-wide bus when one is given.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import anyio.lowlevel
from mcp.server.subscriptions import ListenHandler, ServerEvent, SubscriptionBus, ToolsListChanged
from mcp_types import SubscriptionsListenRequestParams, SubscriptionsListenResult

from statekit.gate.keys import WorkflowKey
from statekit.gate.relay import ListChangedRelay

logger = logging.getLogger("statekit.gate")

Listener = Callable[[ServerEvent], None]


class _RelayBus:
    """An in-process `SubscriptionBus` whose `deliver` can also be fed by another bus."""

    def __init__(self) -> None:
        self._listeners: dict[object, Listener] = {}

    def deliver(self, event: ServerEvent) -> None:
        """Hand `event` to every listener now (listeners must not raise; a raising one is skipped)."""
        for listener in list(self._listeners.values()):
            try:
                listener(event)
            except Exception:  # fan-out boundary, as in the SDK's InMemorySubscriptionBus
                logger.exception("statekit.gate: a listen stream's listener raised")

    async def publish(self, event: ServerEvent) -> None:
        """Deliver `event`, then let the listen streams drain."""
        self.deliver(event)
        await anyio.lowlevel.checkpoint()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Register `listener`; returns an idempotent unsubscribe."""
        token = object()
        self._listeners[token] = listener

        def unsubscribe() -> None:
            self._listeners.pop(token, None)

        return unsubscribe


class _KeyStreams:
    __slots__ = ("bus", "handler", "streams", "unrelay")

    def __init__(self, bus: _RelayBus, handler: ListenHandler, unrelay: Callable[[], None]) -> None:
        self.bus = bus
        self.handler = handler
        self.streams = 0
        self.unrelay = unrelay


class KeyedListenHandler:
    """Serves `subscriptions/listen`, one in-process bus per workflow key."""

    def __init__(
        self,
        resolve: Callable[[Any], WorkflowKey],
        *,
        upstream: SubscriptionBus | None = None,
        relay: ListChangedRelay | None = None,
        max_subscriptions: int = 1024,
    ) -> None:
        self.resolve = resolve
        self.upstream = upstream
        self._relay = relay
        self._relay_task: asyncio.Task[None] | None = None
        self._relay_ready: asyncio.Event | None = None
        self._max_subscriptions = max_subscriptions
        self._by_key: dict[str, _KeyStreams] = {}

    def adopt_relay(self, other: KeyedListenHandler) -> None:
        """Take `other`'s relay when this handler has none (two gates sharing one listen handler)."""
        if self._relay is None:
            self._relay = other._relay
        elif other._relay is not None and other._relay is not self._relay:
            logger.warning(
                "statekit.gate: two gates on one server have different list-changed relays; "
                "the first one's carries both"
            )

    async def _relay_running(self) -> None:
        """Start listening to the relay while this process has streams; return once subscribed."""
        if self._relay is None:
            return
        if self._relay_task is None or self._relay_task.done():
            ready = self._relay_ready = asyncio.Event()
            self._relay_task = asyncio.create_task(
                self._relay.run(self._deliver_relayed, ready.set)
            )
        assert self._relay_ready is not None
        waiter = asyncio.create_task(self._relay_ready.wait())
        done, _ = await asyncio.wait(
            {waiter, self._relay_task}, return_when=asyncio.FIRST_COMPLETED
        )
        if waiter not in done:
            waiter.cancel()
            # The relay died before subscribing: serve the stream locally rather than fail it.
            logger.error(
                "statekit.gate: the list-changed relay stopped: %r", self._relay_task.exception()
            )

    def _stop_relay_if_idle(self) -> None:
        if not self._by_key and self._relay_task is not None:
            self._relay_task.cancel()
            self._relay_task = None

    def _deliver_relayed(self, store_key: str) -> None:
        entry = self._by_key.get(store_key)
        if entry is not None:
            entry.bus.deliver(ToolsListChanged())

    async def __call__(
        self, ctx: Any, params: SubscriptionsListenRequestParams
    ) -> SubscriptionsListenResult:
        """Serve one listen stream on the bus of the caller's workflow key."""
        key = self.resolve(ctx).store_key
        await self._relay_running()
        entry = self._by_key.get(key)
        if entry is None:
            bus = _RelayBus()
            unrelay = (
                self.upstream.subscribe(bus.deliver) if self.upstream is not None else _nothing
            )
            entry = _KeyStreams(
                bus, ListenHandler(bus, max_subscriptions=self._max_subscriptions), unrelay
            )
            self._by_key[key] = entry
        entry.streams += 1
        try:
            return await entry.handler(ctx, params)
        finally:
            entry.streams -= 1
            if entry.streams == 0:
                del self._by_key[key]
                entry.unrelay()
                self._stop_relay_if_idle()

    async def publish_tools_changed(self, key: WorkflowKey) -> None:
        """Send `notifications/tools/list_changed` to the listen streams of `key`, here and elsewhere."""
        entry = self._by_key.get(key.store_key)
        if entry is not None:
            await entry.bus.publish(ToolsListChanged())
        if self._relay is not None:
            await self._relay.publish(key.store_key)

    def listening(self, key: WorkflowKey) -> int:
        """How many listen streams `key` has open now."""
        entry = self._by_key.get(key.store_key)
        return 0 if entry is None else entry.streams


def _nothing() -> None:
    return None
