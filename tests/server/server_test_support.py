"""Helpers shared by the server tests: a real uvicorn server on 127.0.0.1 and an event log."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import sys
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvicorn
from starlette.types import ASGIApp

from statekit.server.http_app import bind_socket, endpoint_url

#: The source tree the server processes of the tests run from (this checkout's).
SRC = str(Path(__file__).resolve().parents[2] / "src")


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


@dataclass
class ServerProcess:
    """A `statekit serve --http` running as its own process, and the last lines of its log."""

    process: asyncio.subprocess.Process
    url: str
    log: deque[str] = field(default_factory=lambda: deque(maxlen=200))
    _drain: asyncio.Task[None] | None = None

    async def stop(self) -> None:
        if self.process.returncode is None:
            self.process.terminate()
        await self.process.wait()
        if self._drain is not None:
            await self._drain


async def start_statekit_http(*args: str, environment: dict[str, str], src: str = SRC) -> ServerProcess:
    """`python -m statekit.server --http --port 0 ARGS` from `src` as its own process (its memory
    and CPU are its own), once it listens. Its log is read all along (a full pipe would stall it)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "statekit.server", "--http", "--port", "0", *args,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": src, **environment})
    stderr = process.stderr
    assert stderr is not None
    log: deque[str] = deque(maxlen=200)
    async with asyncio.timeout(60):
        while True:
            line = (await stderr.readline()).decode()
            assert line, f"the server exited before listening: {list(log)}"
            log.append(line.rstrip())
            found = re.search(r"listening on (http://\S+)", line)
            if found:
                break

    async def drain() -> None:
        while line := await stderr.readline():
            log.append(line.decode(errors="replace").rstrip())

    return ServerProcess(process, found.group(1), log, asyncio.create_task(drain()))


def statekit_stdio_parameters(*args: str) -> Any:
    """`python -m statekit.server ARGS` for the SDK's stdio client, running the statekit this test
    imports (the SDK starts servers with a minimal environment, which would drop a PYTHONPATH)."""
    import sys
    from pathlib import Path

    from mcp.client.stdio import StdioServerParameters, get_default_environment

    import statekit

    source = str(Path(statekit.__file__).resolve().parents[1])
    return StdioServerParameters(command=sys.executable, args=["-m", "statekit.server", *args],
                                 env={**get_default_environment(), "PYTHONPATH": source})
