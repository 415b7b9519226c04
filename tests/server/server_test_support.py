"""Helpers shared by the server tests: a real uvicorn server on 127.0.0.1 and an event log."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import uvicorn
from starlette.types import ASGIApp

from statekit.server.http_app import bind_socket, endpoint_url


@contextlib.asynccontextmanager
async def serving(app: ASGIApp) -> AsyncIterator[str]:
    """Serve `app` with uvicorn on 127.0.0.1 (a free port) and yield the endpoint URL."""
    sock = bind_socket("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        async with asyncio.timeout(10):
            while not server.started:
                if task.done():
                    task.result()
                await asyncio.sleep(0.01)
        yield endpoint_url(sock)
    finally:
        server.should_exit = True
        async with asyncio.timeout(10):
            await task
        sock.close()


class EventLog:
    """Collects observer events; `wait_for(n)` waits (bounded) until n events arrived."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self._changed = asyncio.Event()

    def __call__(self, event: Any) -> None:
        self.events.append(dict(event))
        self._changed.set()

    async def wait_for(self, count: int) -> list[dict[str, Any]]:
        async with asyncio.timeout(10):
            while len(self.events) < count:
                self._changed.clear()
                await self._changed.wait()
        return self.events
