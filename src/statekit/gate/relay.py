"""Carry "this workflow's tool list changed" between server replicas (2026-07-28 listen streams).

A listen stream lives on the replica the client opened it on, while the call
that moves the workflow may land on another replica (they share the state
store). A relay publishes the changed workflow key to every replica, and each
replica wakes its own streams for that key. `RedisListChangedRelay` does it with
Redis pub/sub; any object with the same two methods will do.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from typing import Any, Protocol


class ListChangedRelay(Protocol):
    """Fan-out of changed workflow keys across processes."""

    async def publish(self, store_key: str) -> None:
        """Tell every other process that the tool list of `store_key` changed."""
        ...

    async def run(self, deliver: Callable[[str], None], ready: Callable[[], None]) -> None:
        """Call `deliver(store_key)` for each change published by another process, until cancelled.

        Calls `ready()` once it is subscribed, so no change published afterwards is missed.
        """
        ...


class RedisListChangedRelay:
    """A `ListChangedRelay` on one Redis pub/sub channel."""

    def __init__(self, client: Any, *, channel: str = "statekit:gate:tools-changed") -> None:
        """`client` is a `redis.asyncio.Redis`."""
        self._client = client
        self._channel = channel
        # Our own messages come back to us; the origin lets us skip them (local
        # streams were already woken directly).
        self._origin = secrets.token_hex(8)

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> RedisListChangedRelay:
        """A relay on a new `redis.asyncio` client for `url`."""
        import redis.asyncio

        return cls(redis.asyncio.Redis.from_url(url), **kwargs)

    async def publish(self, store_key: str) -> None:
        """Publish `store_key` on the channel."""
        await self._client.publish(
            self._channel, json.dumps({"origin": self._origin, "key": store_key})
        )

    async def run(self, deliver: Callable[[str], None], ready: Callable[[], None]) -> None:
        """Subscribe, signal `ready`, then deliver other processes' keys until cancelled."""
        pubsub = self._client.pubsub()
        try:
            await pubsub.subscribe(self._channel)
            ready()
            async for message in pubsub.listen():
                if message.get("type") != "message":
                    continue
                try:
                    data = json.loads(message["data"])
                except (TypeError, ValueError):
                    continue
                if isinstance(data, dict) and data.get("origin") != self._origin:
                    key = data.get("key")
                    if isinstance(key, str):
                        deliver(key)
        finally:
            await pubsub.aclose()
