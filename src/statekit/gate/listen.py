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

import logging
from collections.abc import Callable
from typing import Any

import anyio.lowlevel
from mcp.server.subscriptions import ListenHandler, ServerEvent, SubscriptionBus, ToolsListChanged
from mcp_types import SubscriptionsListenRequestParams, SubscriptionsListenResult

from statekit.gate.keys import WorkflowKey

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
        max_subscriptions: int = 1024,
    ) -> None:
        self._resolve = resolve
        self.upstream = upstream
        self._max_subscriptions = max_subscriptions
        self._by_key: dict[str, _KeyStreams] = {}

    async def __call__(
        self, ctx: Any, params: SubscriptionsListenRequestParams
    ) -> SubscriptionsListenResult:
        """Serve one listen stream on the bus of the caller's workflow key."""
        key = self._resolve(ctx).store_key
        entry = self._by_key.get(key)
        if entry is None:
            bus = _RelayBus()
            unrelay = self.upstream.subscribe(bus.deliver) if self.upstream is not None else _nothing
            entry = _KeyStreams(bus, ListenHandler(bus, max_subscriptions=self._max_subscriptions), unrelay)
            self._by_key[key] = entry
        entry.streams += 1
        try:
            return await entry.handler(ctx, params)
        finally:
            entry.streams -= 1
            if entry.streams == 0:
                del self._by_key[key]
                entry.unrelay()

    async def publish_tools_changed(self, key: WorkflowKey) -> None:
        """Send `notifications/tools/list_changed` to the listen streams of `key`."""
        entry = self._by_key.get(key.store_key)
        if entry is not None:
            await entry.bus.publish(ToolsListChanged())

    def listening(self, key: WorkflowKey) -> int:
        """How many listen streams `key` has open now."""
        entry = self._by_key.get(key.store_key)
        return 0 if entry is None else entry.streams


def _nothing() -> None:
    return None
