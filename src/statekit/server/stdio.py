"""Serving over stdin/stdout, one client per process (the way editors launch local servers)."""

from __future__ import annotations

from typing import Any

from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server


async def serve_stdio(server: Server[Any]) -> None:
    """Serve `server` on this process's stdin/stdout until the client closes stdin.

    The SDK's loop lets the client's first message pick the era: `server/discover` (2026-07-28)
    or `initialize` (2025 clients).
    """
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
