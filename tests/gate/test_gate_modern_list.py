"""On 2026-07-28 clients the default list is static: every tool, each bound one declaring its states.

MCP 2026-07-28: a server's tool list "MUST NOT vary per-connection or as a side effect of other
requests on the connection" (SEP-2567). Legacy (initialize-session) clients keep a list that
follows the state, with `notifications/tools/list_changed`; `Gate(modern_list="by_state")` is
the documented opt-in that departs from the sentence above.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
import pytest
from closed_world_servers import KINDS, build
from mcp import Client

from needs import missing
from statekit.gate import Gate

try:
    from fastmcp import Client as FastMCPClient
except ImportError:  # pragma: no cover - depends on the environment
    missing("fastmcp", "pip install -e '.[test]'")

MODERN = "2026-07-28"
#: The invoice walk: each call moves the workflow (draft -> review -> approved).
WALK = ["submit", "approve"]


def sdk_target(server: Any, kind: str) -> Any:
    return server._mcp_server if kind == "fastmcp" else server


async def raw_list(client: Client) -> str:
    """The `tools/list` result as the wire carries it (no client cache)."""
    listed = await client.list_tools(cache_mode="refresh")
    return listed.model_dump_json(by_alias=True, exclude_none=True)


@pytest.mark.parametrize("kind", KINDS)
async def test_a_modern_list_is_byte_identical_across_every_transition(kind: str) -> None:
    ran: list[str] = []
    server, _ = build(kind, "aprove", ran, fix_typos=True)
    notified: list[Any] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            notified.append(message)

    async with Client(sdk_target(server, kind), mode=MODERN, message_handler=on_message) as client:
        first = await raw_list(client)
        # A call outside its state is refused on the call path, and the list does not move.
        refused = await client.call_tool("approve", {})
        assert refused.is_error and refused.structured_content is not None
        assert refused.structured_content["code"] == "FORBIDDEN"
        assert await raw_list(client) == first
        for name in WALK:
            assert not (await client.call_tool(name, {})).is_error
            assert await raw_list(client) == first, f"the list changed after {name}"
    assert ran == WALK and notified == []


@pytest.mark.parametrize("kind", KINDS)
async def test_each_bound_tool_declares_the_states_it_needs(kind: str) -> None:
    server, _ = build(kind, "balance", [], fix_typos=True)
    async with Client(sdk_target(server, kind), mode=MODERN) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert sorted(tools) == ["check_balance", "help", "login"]
    balance = tools["check_balance"]
    assert balance.description is not None
    assert "Allowed only while the workflow is in: authenticated." in balance.description
    assert balance.meta is not None
    assert balance.meta["statekit/gate"] == {
        "requirements": ["state:authenticated"],
        "states": ["authenticated"],
    }
    login = tools["login"]
    assert login.meta is not None
    assert login.meta["statekit/gate"]["onSuccess"] == "LOGIN"
    assert tools["help"].meta is None or "statekit/gate" not in tools["help"].meta


async def test_fastmcps_own_client_sees_the_static_list() -> None:
    server, _ = build("fastmcp", "aprove", [], fix_typos=True)
    async with FastMCPClient(server) as client:  # "auto" negotiates 2026-07-28
        first = [tool.model_dump() for tool in await client.list_tools()]
        await client.call_tool("submit", {})
        assert [tool.model_dump() for tool in await client.list_tools()] == first
    assert [tool["name"] for tool in first] == ["submit", "approve"]


@pytest.mark.parametrize("kind", KINDS)
async def test_legacy_sessions_keep_a_list_that_follows_the_state(kind: str) -> None:
    server, _ = build(kind, "aprove", [], fix_typos=True)
    notified: list[Any] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            notified.append(message)

    async with Client(
        sdk_target(server, kind), mode="legacy", message_handler=on_message
    ) as client:
        assert [t.name for t in (await client.list_tools()).tools] == ["submit"]
        await client.call_tool("submit", {})
        assert [t.name for t in (await client.list_tools(cache_mode="refresh")).tools] == [
            "approve"
        ]
    assert notified


async def test_a_list_by_state_is_an_explicit_opt_in() -> None:
    gate = Gate(
        {"id": "w", "initial": "a", "states": {"a": {"on": {"GO": "b"}}, "b": {}}},
        modern_list="by_state",
    )

    @gate.tool(description="Go.", bind="a", on_success="GO")
    async def go(arguments: dict[str, Any], call: Any) -> str:
        return "gone"

    @gate.tool(description="Stay.", bind="b")
    async def stay(arguments: dict[str, Any], call: Any) -> str:
        return "stayed"

    from mcp.server.lowlevel.server import Server

    server: Server[Any] = Server("opt-in")
    gate.install(server)
    async with Client(server, mode=MODERN) as client:
        assert [t.name for t in (await client.list_tools()).tools] == ["go"]
        await client.call_tool("go", {})
        assert [t.name for t in (await client.list_tools(cache_mode="refresh")).tools] == ["stay"]


async def test_a_gate_that_filters_modern_lists_by_state_fails_the_identity_test(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The planted forgetting: list by state for modern clients too (the default before issue 22)."""
    monkeypatch.setattr(Gate, "lists_statically", lambda self, ctx: self.mode == "handle")
    with pytest.raises(Exception) as raised:
        await test_a_modern_list_is_byte_identical_across_every_transition("lowlevel")
    assert any("the list changed after submit" in str(error) for error in leaves(raised.value))


def leaves(error: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]
