"""On FastMCP the gate reuses each caller's catalog for a second instead of rebuilding it per call.

The catalog (what the caller can list before any gate's state filter) names the tools in
every state note and refusal. FastMCP builds it through its whole middleware and provider
pipeline, which costs about as much as the tool call itself, so the gate keeps one per
caller (access token, and on legacy sessions the connection) for `CATALOG_TTL_SECONDS`.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client, FastMCP
from gate_workflows import INVOICE

from statekit.gate import Gate
from statekit.gate.fastmcp_middleware import CATALOG_TTL_SECONDS, GateMiddleware


def served() -> tuple[FastMCP, GateMiddleware, list[int], list[float]]:
    mcp = FastMCP("catalog")

    @mcp.tool
    def submit() -> str:
        """Submit."""
        return "submitted"

    @mcp.tool
    def note() -> str:
        """Always there."""
        return "noted"

    gate = Gate(INVOICE)
    gate.bind("submit", "draft")
    gate.bind("note")
    gate.install(mcp)
    middleware = next(m for m in mcp.middleware if isinstance(m, GateMiddleware))
    fetches = [0]
    clock = [100.0]
    fetch = middleware.catalogs._fetch

    async def counted() -> list[str]:
        fetches[0] += 1
        return await fetch()

    middleware.catalogs._fetch = counted
    middleware.catalogs._clock = lambda: clock[0]
    return mcp, middleware, fetches, clock


def allowed(result: Any) -> list[str]:
    return list(result.meta["statekit/gate"]["allowedTools"])


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_one_fetch_per_caller_per_ttl(mode: str) -> None:
    mcp, _, fetches, clock = served()
    async with Client(mcp, mode=mode) as client:
        for _ in range(10):
            assert allowed(await client.call_tool("submit", {})) == ["submit", "note"]
        assert fetches[0] == 1
        clock[0] += CATALOG_TTL_SECONDS
        await client.call_tool("submit", {})
        assert fetches[0] == 2


async def test_a_tool_added_at_runtime_is_named_once_the_ttl_passed() -> None:
    mcp, _, _, clock = served()
    async with Client(mcp, mode="legacy") as client:
        assert allowed(await client.call_tool("note", {})) == ["submit", "note"]

        @mcp.tool
        def later() -> str:
            """Added while serving."""
            return "later"

        assert allowed(await client.call_tool("note", {})) == ["submit", "note"]
        clock[0] += CATALOG_TTL_SECONDS
        assert allowed(await client.call_tool("note", {})) == ["submit", "note", "later"]


async def test_each_legacy_connection_has_its_own_catalog() -> None:
    mcp, _, fetches, _ = served()
    async with Client(mcp, mode="legacy") as first, Client(mcp, mode="legacy") as second:
        await first.call_tool("note", {})
        await second.call_tool("note", {})
        await first.call_tool("note", {})
    assert fetches[0] == 2
