"""Several gates on one server: each gate's refusals and notes name only tools the client can list."""

from __future__ import annotations

from typing import Any

import fastmcp  # a test dependency (pyproject [test])
import mcp_types as types
import pytest
from gate_workflows import INVOICE
from mcp import Client
from mcp.server.lowlevel.server import Server

from statekit.gate import Gate, MemoryStore

TILL: dict[str, Any] = {
    "id": "till",
    "initial": "closed",
    "states": {"closed": {"on": {"OPEN": "open"}}, "open": {"on": {"CLOSE": "closed"}}},
}
NAMES = ["submit", "approve", "open_till", "pay", "help"]


def two_gates(modern_list: Any = "static") -> tuple[Gate, Gate]:
    store = MemoryStore()  # one store for both: each gate keeps its own namespace
    invoice = Gate(INVOICE, store=store, modern_list=modern_list)
    invoice.bind("submit", "draft", "SUBMIT")
    invoice.bind("approve", "review", "APPROVE")
    till = Gate(TILL, store=store, modern_list=modern_list)
    till.bind("open_till", "closed", "OPEN")
    till.bind("pay", "open")
    return invoice, till


def lowlevel_server() -> Server[Any]:
    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(name=name, description=f"{name}.", input_schema={"type": "object"})
                for name in NAMES
            ]
        )

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text="ok")])

    return Server("two-gates", on_list_tools=list_tools, on_call_tool=call_tool)


def fastmcp_server() -> Any:
    mcp = fastmcp.FastMCP("two-gates")
    for name in NAMES:

        def tool() -> str:
            return "ok"

        mcp.tool(tool, name=name, description=f"{name}.")
    return mcp


@pytest.mark.parametrize("kind", ["lowlevel", "fastmcp"])
async def test_two_gates_name_only_listable_tools(kind: str) -> None:
    invoice, till = two_gates()
    server = lowlevel_server() if kind == "lowlevel" else fastmcp_server()
    invoice.install(server)
    till.install(server)
    wire = server if kind == "lowlevel" else server._mcp_server
    async with Client(wire, mode="legacy") as client:
        assert [t.name for t in (await client.list_tools()).tools] == [
            "submit",
            "open_till",
            "help",
        ]
        refused = await client.call_tool("approve", {})  # the invoice gate refuses
        assert refused.structured_content is not None
        assert refused.structured_content["code"] == "FORBIDDEN"
        assert refused.structured_content["allowedTools"] == ["submit", "open_till", "help"]
        refused = await client.call_tool("pay", {})  # the till gate refuses
        assert refused.structured_content is not None
        assert refused.structured_content["allowedTools"] == ["submit", "open_till", "help"]
        done = await client.call_tool("submit", {})
        assert done.meta is not None
        assert done.meta["statekit/gate"]["allowedTools"] == ["approve", "open_till", "help"]
        done = await client.call_tool("open_till", {})
        assert done.meta is not None
        assert done.meta["statekit/gate"]["allowedTools"] == ["approve", "pay", "help"]
        assert [t.name for t in (await client.list_tools()).tools] == ["approve", "pay", "help"]


async def test_one_listen_stream_hears_both_gates() -> None:
    import asyncio

    # 2026-07-28 lists change with the state only when the author opts in.
    invoice, till = two_gates(modern_list="by_state")
    server = lowlevel_server()
    invoice.install(server)
    till.install(server)
    async with (
        Client(server, mode="2026-07-28") as client,
        client.listen(tools_list_changed=True) as events,
    ):
        iterator = aiter(events)
        assert not (await client.call_tool("submit", {})).is_error
        async with asyncio.timeout(10):
            assert type(await anext(iterator)).__name__ == "ToolsListChanged"
        assert not (await client.call_tool("open_till", {})).is_error
        async with asyncio.timeout(10):
            assert type(await anext(iterator)).__name__ == "ToolsListChanged"
