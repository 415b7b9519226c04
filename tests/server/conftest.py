"""Fixtures for the MCP server tests: the demo tools and a real uvicorn server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import uvicorn
from server_demo_tools import DEMO_TOOLS
from starlette.types import ASGIApp

from statekit.server.http_app import bind_socket, endpoint_url
from statekit.tools import registry
from statekit.tools.registry import ToolSpec


@pytest.fixture
def demo_tools(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, ToolSpec]]:
    """The demo tools in the registry for one test, next to the real tools."""
    registry.tools()  # load the real tools first, so the demo ones are removed cleanly afterwards
    for spec in DEMO_TOOLS:
        monkeypatch.setitem(registry._REGISTRY, spec.name, spec)
    yield {spec.name: spec for spec in DEMO_TOOLS}


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


@pytest.fixture
def event_log() -> EventLog:
    return EventLog()
