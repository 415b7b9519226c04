"""On FastMCP the gate reuses each caller's catalog for a second instead of rebuilding it per call.

The catalog (what the caller can list before any gate's state filter) names the tools in
every state note and refusal. FastMCP builds it through its whole middleware and provider
pipeline, which costs about as much as the tool call itself, so the gate keeps one per
caller (access token, and on legacy sessions the connection) for `CATALOG_TTL_SECONDS`.
"""

from __future__ import annotations

import logging
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


class _ListCounter:
    def __init__(self) -> None:
        self.lists = 0

    async def on_list_tools(self, context: Any, call_next: Any) -> Any:
        from statekit.gate.listing import catalog_pass

        if not catalog_pass.get():  # the gate's own catalog reads are not the client's
            self.lists += 1
        return await call_next(context)


@pytest.mark.parametrize("client_kind", ["fastmcp", "sdk"])
async def test_a_2026_client_walking_the_workflow_never_re_lists(
    client_kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Clients re-list when a result comes back for a tool missing from their cached list; a
    2026-07-28 client's list names every tool, so a whole workflow costs it one listing and no
    "not listed by server" warning."""
    from fastmcp.server.middleware import Middleware
    from mcp import Client as SDKClient

    mcp = FastMCP("walk")
    for name in ("submit", "approve", "discharge"):
        mcp.tool(lambda: "done", name=name, description=f"{name}.")
    counter = type("Counter", (_ListCounter, Middleware), {})()
    mcp.add_middleware(counter)
    gate = Gate(INVOICE)
    gate.bind("submit", "draft", "SUBMIT")
    gate.bind("approve", "review", "APPROVE")
    gate.bind("discharge", "approved", "DISCHARGE")
    gate.install(mcp)
    caplog.set_level(logging.WARNING)
    if client_kind == "fastmcp":
        async with Client(mcp) as fast:
            for name in ("submit", "approve", "discharge"):
                assert not (await fast.call_tool(name, {})).is_error
    else:
        async with SDKClient(mcp._mcp_server, mode="2026-07-28") as sdk:
            for name in ("submit", "approve", "discharge"):
                assert not (await sdk.call_tool(name, {})).is_error
    assert counter.lists == 1  # the client's own first listing, for the output schemas
    assert "not listed by server" not in caplog.text


def test_anonymous_2026_http_requests_share_no_catalog() -> None:
    """Over HTTP without a token nothing tells two 2026-07-28 callers apart (a middleware could
    filter the list on a request header), so their catalogs are never reused."""
    from types import SimpleNamespace

    from statekit.gate.fastmcp_middleware import _caller

    over_http = SimpleNamespace(protocol_version="2026-07-28", request=object(), session=None)
    assert _caller(over_http) is None
    in_process = SimpleNamespace(protocol_version="2026-07-28", request=None, session=None)
    assert _caller(in_process) == ("modern", None)
