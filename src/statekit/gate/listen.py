"""`subscriptions/listen` for gated lists (2026-07-28): tell only the clients whose list changed.

The SDK's `ListenHandler` fans every event out to every stream. A gated list
varies by workflow key (the authenticated principal, or the server-wide
fallback), so a stream is opened on the bus of the key its own request
resolves to, and the gate publishes `ToolsListChanged` on that key's bus only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp_types import SubscriptionsListenRequestParams, SubscriptionsListenResult

from statekit.gate.keys import WorkflowKey


class KeyedListenHandler:
    """Serves `subscriptions/listen`, one in-process bus per workflow key."""

    def __init__(self, resolve: Callable[[Any], WorkflowKey], *, max_subscriptions: int = 1024) -> None:
        self._resolve = resolve
        self._max_subscriptions = max_subscriptions
        self._handlers: dict[str, tuple[InMemorySubscriptionBus, ListenHandler, int]] = {}

    async def __call__(
        self, ctx: Any, params: SubscriptionsListenRequestParams
    ) -> SubscriptionsListenResult:
        """Serve one listen stream on the bus of the caller's workflow key."""
        key = self._resolve(ctx).store_key
        entry = self._handlers.get(key)
        if entry is None:
            bus = InMemorySubscriptionBus()
            entry = (bus, ListenHandler(bus, max_subscriptions=self._max_subscriptions), 0)
        bus, handler, streams = entry
        self._handlers[key] = (bus, handler, streams + 1)
        try:
            return await handler(ctx, params)
        finally:
            bus, handler, streams = self._handlers[key]
            if streams == 1:
                del self._handlers[key]
            else:
                self._handlers[key] = (bus, handler, streams - 1)

    async def publish_tools_changed(self, key: WorkflowKey) -> None:
        """Send `notifications/tools/list_changed` to the listen streams of `key`."""
        entry = self._handlers.get(key.store_key)
        if entry is not None:
            await entry[0].publish(ToolsListChanged())

    def listening(self, key: WorkflowKey) -> int:
        """How many listen streams `key` has open now."""
        entry = self._handlers.get(key.store_key)
        return 0 if entry is None else entry[2]
