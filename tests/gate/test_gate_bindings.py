"""Registration fails closed, and a gate wraps servers that already serve their own tools."""

from __future__ import annotations

import asyncio
from typing import Any

import mcp_types as types
import pytest
from gate_workflows import INVOICE, SHIPMENT
from mcp import Client
from mcp.server.lowlevel.server import Server
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError

from statekit.gate import Gate, GateCall, GateConfigError
from statekit.gate.errors import LIST_REFUSED_RPC_CODE


async def noop(arguments: dict[str, Any], call: GateCall) -> str:
    return "ok"


def test_unknown_state_is_an_error_at_registration() -> None:
    gate = Gate(INVOICE)
    with pytest.raises(GateConfigError, match="unknown state 'aproved'"):
        gate.tool("discharge", description="Pay.", bind="aproved", on_success="DISCHARGE")(noop)
    with pytest.raises(GateConfigError, match="unknown state"):
        gate.bind("discharge", ["approved", "invoice.nowhere"])


def test_event_no_bound_state_handles_is_an_error() -> None:
    gate = Gate(INVOICE)
    with pytest.raises(GateConfigError, match="'DISCHARGE' is not handled in 'draft'"):
        gate.tool("discharge", description="Pay.", bind="draft", on_success="DISCHARGE")(noop)
    with pytest.raises(GateConfigError, match="not handled in any state"):
        gate.tool("pay", description="Pay.", on_success="PAY")(noop)


def test_states_by_id_path_and_hash_id_and_inherited_events() -> None:
    gate = Gate(SHIPMENT)
    # `DISPATCH` is declared on the parallel parent, so its descendants handle it too.
    gate.bind("a", "checks.payment.pending", "DISPATCH")
    gate.bind("b", "shipment.packing.boxing", "BOXED")
    gate.bind("c", "#shipment.packing", "PICKED")
    paths = {binding.tool: binding.state_paths for binding in gate.bindings()}
    assert paths == {
        "a": ("checks.payment.pending",),
        "b": ("packing.boxing",),
        "c": ("packing",),
    }


def test_other_registration_mistakes() -> None:
    gate = Gate(INVOICE)
    with pytest.raises(GateConfigError, match="root"):
        gate.bind("x", "invoice")
    gate.bind("approve", "review", "APPROVE")
    with pytest.raises(GateConfigError, match="bound twice"):
        gate.bind("approve", "review", "REJECT")
    with pytest.raises(GateConfigError, match="creates_handle needs mode='handle'"):
        gate.tool("create", description="New.", creates_handle=True)(noop)
    with pytest.raises(GateConfigError, match="state_handle_key"):
        Gate(INVOICE, mode="handle")
    handle_gate = Gate(INVOICE, mode="handle", state_handle_key="invoice_id")
    handle_gate.tool("submit", description="Submit.", bind="draft", on_success="SUBMIT")(noop)
    with pytest.raises(GateConfigError, match="creates_handle=True"):
        handle_gate.install(Server("no-creator"))


def test_binding_tools_the_server_does_not_serve_is_an_error() -> None:
    gate = Gate(INVOICE)
    gate.bind("approve", "review", "APPROVE")
    with pytest.raises(GateConfigError, match="no tools/list and tools/call"):
        gate.install(Server("empty"))


def wrapped_lowlevel_server() -> tuple[Server[Any], list[str]]:
    """A plain low-level server with its own handlers; `internal_audit` is hidden by its own filter."""
    ran: list[str] = []
    all_tools = ["submit", "approve", "discharge", "internal_audit", "help"]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(name=name, description=f"{name}.", input_schema={"type": "object"})
                for name in all_tools
                if name != "internal_audit"  # the server's own exposure filter
            ]
        )

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        ran.append(params.name)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=f"{params.name} ok")]
        )

    return Server("wrapped", on_list_tools=list_tools, on_call_tool=call_tool), ran


async def test_gate_wraps_existing_lowlevel_handlers() -> None:
    server, ran = wrapped_lowlevel_server()
    gate = Gate(INVOICE)
    gate.bind("submit", "draft", "SUBMIT", compact_description="Submit it.")
    gate.bind("approve", "review", "APPROVE")
    gate.bind("discharge", "approved", "DISCHARGE")
    gate.install(server)
    async with Client(server, mode="legacy") as client:
        listed = (await client.list_tools()).tools
        assert [(t.name, t.description) for t in listed] == [
            ("submit", "Submit it."),
            ("help", "help."),
        ]
        refused = await client.call_tool("discharge", {})
        assert refused.is_error and refused.structured_content is not None
        assert refused.structured_content["allowedTools"] == ["submit", "help"]
        assert ran == []
        await client.call_tool("submit", {})
        await client.call_tool("approve", {})
        # In `approved`, the allowed list never names the tool the server itself hides.
        refused = await client.call_tool("submit", {})
        assert refused.structured_content is not None
        assert refused.structured_content["allowedTools"] == ["discharge", "help"]
        assert "internal_audit" not in str(refused.content)
        assert (await client.call_tool("help", {})).content[0].text == "help ok"  # type: ignore[union-attr]
        await client.call_tool("discharge", {})
        assert ran == ["submit", "approve", "help", "discharge"]


@pytest.mark.parametrize("first", ["list", "call"])
async def test_a_bound_name_the_server_never_lists_refuses_every_gated_call(first: str) -> None:
    """`gate.bind("aprove", ...)`: a typo must not leave the real `approve` ungated."""
    server, ran = wrapped_lowlevel_server()
    gate = Gate(INVOICE)
    gate.bind("submit", "draft", "SUBMIT")
    gate.bind("aprove", "review", "APPROVE")  # the server serves `approve`
    gate.install(server)
    async with Client(server, mode="legacy") as client:
        if first == "list":
            with pytest.raises(MCPError) as raised:
                await client.list_tools()
            assert raised.value.error.code == LIST_REFUSED_RPC_CODE
            assert "GateConfigError" in raised.value.error.message
            assert "aprove" in raised.value.error.message
        refused = await client.call_tool("submit", {})
        assert refused.is_error and refused.structured_content is not None
        assert refused.structured_content["code"] == "GATE_MISCONFIGURED"
        assert "aprove" in refused.structured_content["message"]
        assert ran == []


def test_an_empty_state_list_is_an_error() -> None:
    gate = Gate(INVOICE)
    with pytest.raises(GateConfigError, match="empty state list"):
        gate.bind("approve", [], "APPROVE")
    with pytest.raises(GateConfigError, match="empty state list"):
        gate.tool("pay", description="Pay.", bind=())(noop)


def test_a_binding_to_states_the_workflow_never_reaches_is_an_error() -> None:
    workflow = {
        "id": "w",
        "initial": "a",
        "states": {
            "a": {"on": {"GO": "b"}},
            "b": {"initial": "b1", "states": {"b1": {"on": {"IN": "b2"}}, "b2": {}}},
            "orphan": {"on": {"BACK": "a"}},
            "lost": {"type": "parallel", "states": {"x": {}, "y": {}}},
        },
    }
    gate = Gate(workflow)
    gate.bind("ok", ["b.b2"], None)
    with pytest.raises(GateConfigError, match="can never reach"):
        gate.bind("never", "orphan", "BACK")
    with pytest.raises(GateConfigError, match="can never reach"):
        gate.bind("never2", ["lost.x", "orphan"])
    # One reachable state among several is enough.
    gate.bind("some", ["orphan", "a"], "GO")


def test_reachability_follows_parallel_regions_history_and_ids() -> None:
    gate = Gate(SHIPMENT)
    for index, path in enumerate(
        ["checks.customs.cleared", "checks.payment.paid", "dispatched", "packing.boxing"]
    ):
        gate.bind(f"t{index}", path)


async def test_gate_installs_on_mcpserver() -> None:
    mcp = MCPServer("fastish")

    @mcp.tool()
    def submit() -> str:
        """Submit the draft."""
        return "submitted"

    @mcp.tool()
    def approve() -> str:
        """Approve it."""
        return "approved"

    gate = Gate(INVOICE)
    gate.bind("submit", "draft", "SUBMIT")
    gate.bind("approve", "review", "APPROVE")
    gate.install(mcp)
    async with Client(mcp, mode="legacy") as client:
        assert [t.name for t in (await client.list_tools()).tools] == ["submit"]
        assert (await client.call_tool("approve", {})).is_error
        assert not (await client.call_tool("submit", {})).is_error
        assert [t.name for t in (await client.list_tools()).tools] == ["approve"]


async def test_mcpserver_keeps_its_own_listen_events() -> None:
    mcp = MCPServer("fastish")

    @mcp.tool()
    async def submit(ctx: Context) -> str:
        """Submit the draft."""
        await ctx.notify_resources_changed()
        return "submitted"

    gate = Gate(INVOICE, modern_list="by_state")  # so that the gate has list changes to tell
    gate.bind("submit", "draft", "SUBMIT")
    gate.install(mcp)
    async with (
        Client(mcp, mode="2026-07-28") as client,
        client.listen(tools_list_changed=True, resources_list_changed=True) as events,
    ):
        iterator = aiter(events)
        assert not (await client.call_tool("submit", {})).is_error
        seen = set()
        async with asyncio.timeout(10):
            while len(seen) < 2:
                seen.add(type(await anext(iterator)).__name__)
        assert seen == {"ResourcesListChanged", "ToolsListChanged"}
