"""The gate on FastMCP 4.x, through its middleware: fastmcp's Client and the SDK client, both eras."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

import mcp_types as types
import pytest

from needs import missing

try:
    import fastmcp  # noqa: F401
except ImportError:  # pragma: no cover - depends on the environment
    missing("fastmcp", "pip install -e '.[test]'")

from fastmcp import Client as FastMCPClient
from fastmcp import FastMCP
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools.base import ToolResult
from gate_helpers import REPO, http_server
from gate_workflows import INVOICE
from mcp import Client, StdioServerParameters
from mcp.server.lowlevel.server import Server
from mcp.server.mcpserver import MCPServer

from statekit.gate import Gate, GateCall, GateConfigError, current_call

FASTMCP_EXAMPLE = REPO / "examples" / "invoice_fastmcp.py"
MODERN = "2026-07-28"


class Recorder(Middleware):
    """A user's audit middleware: it must see every call, refused ones included."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, bool]] = []

    async def on_call_tool(
        self,
        context: MiddlewareContext[types.CallToolRequestParams],
        call_next: CallNext[types.CallToolRequestParams, ToolResult],
    ) -> ToolResult:
        result = await call_next(context)
        self.calls.append((context.message.name, bool(result.is_error)))
        return result


def invoice_fastmcp() -> tuple[FastMCP, Recorder, list[GateCall | None]]:
    mcp = FastMCP("gated")
    seen: list[GateCall | None] = []

    @mcp.tool
    def submit(note: str = "") -> str:
        """Submit the draft."""
        seen.append(current_call())
        return "submitted"

    @mcp.tool
    def approve() -> str:
        """Approve it."""
        seen.append(current_call())
        return "approved"

    @mcp.tool
    def help() -> str:
        """Always there."""
        return "help"

    recorder = Recorder()
    mcp.add_middleware(recorder)
    gate = Gate(INVOICE)
    gate.bind("submit", "draft", "SUBMIT")
    gate.bind("approve", "review", "APPROVE")
    gate.install(mcp)
    return mcp, recorder, seen


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_install_on_fastmcp_gates_through_its_middleware(mode: str) -> None:
    mcp, recorder, seen = invoice_fastmcp()
    # fastmcp's client speaks 2026-07-28 in "auto": its list is static, every tool declared.
    static = mode == "auto"
    async with FastMCPClient(mcp, mode=mode) as client:
        assert [t.name for t in await client.list_tools()] == (
            ["submit", "approve", "help"] if static else ["submit", "help"]
        )
        refused = await client.call_tool("approve", {}, raise_on_error=False)
        assert refused.is_error and refused.structured_content is not None
        assert refused.structured_content["code"] == "FORBIDDEN"
        assert refused.structured_content["allowedTools"] == ["submit", "help"]
        done = await client.call_tool("submit", {"note": "x"}, raise_on_error=False)
        assert not done.is_error
        assert "Workflow state: review" in done.content[-1].text  # type: ignore[union-attr]
        assert [t.name for t in await client.list_tools()] == (
            ["submit", "approve", "help"] if static else ["approve", "help"]
        )
    # The refusal travelled through the user's middleware like any other result.
    assert recorder.calls == [("approve", True), ("submit", False)]
    call = seen[0]
    assert call is not None and call.key == "invoice/server:invoice"
    assert call.state == "draft" and call.transition_id == "invoice/server:invoice#1"


async def test_mounted_and_namespaced_tools_are_gated_by_their_listed_names() -> None:
    child = FastMCP("billing")

    @child.tool
    def approve() -> str:
        """Approve it."""
        return "approved"

    @child.tool
    def submit() -> str:
        """Submit it."""
        return "submitted"

    parent = FastMCP("app")
    parent.mount(child, namespace="billing")
    gate = Gate(INVOICE)
    gate.bind("billing_submit", "draft", "SUBMIT")
    gate.bind("billing_approve", "review", "APPROVE")
    gate.install(parent)
    async with FastMCPClient(parent, mode="legacy") as client:  # a list that follows the state
        assert [t.name for t in await client.list_tools()] == ["billing_submit"]
        refused = await client.call_tool("billing_approve", {}, raise_on_error=False)
        assert refused.structured_content is not None
        assert refused.structured_content["code"] == "FORBIDDEN"
        assert not (await client.call_tool("billing_submit", {}, raise_on_error=False)).is_error
        assert [t.name for t in await client.list_tools()] == ["billing_approve"]


async def test_a_typo_in_a_fastmcp_binding_refuses_every_gated_call() -> None:
    mcp = FastMCP("typo")

    @mcp.tool
    def approve() -> str:
        """Approve."""
        return "approved"

    @mcp.tool
    def submit() -> str:
        """Submit."""
        return "submitted"

    gate = Gate(INVOICE)
    gate.bind("submit", "draft", "SUBMIT")
    gate.bind("aprove", "review", "APPROVE")
    gate.install(mcp)
    async with FastMCPClient(mcp) as client:
        refused = await client.call_tool("submit", {}, raise_on_error=False)
        assert refused.structured_content is not None
        assert refused.structured_content["code"] == "GATE_MISCONFIGURED"


def test_gate_tools_are_refused_on_fastmcp() -> None:
    gate = Gate(INVOICE)

    @gate.tool(description="Submit.", bind="draft", on_success="SUBMIT")
    async def submit(arguments: dict[str, Any], call: GateCall) -> str:
        return "x"

    with pytest.raises(GateConfigError, match=r"gate\.bind"):
        gate.install(FastMCP("x"))


@pytest.mark.parametrize("client_kind", ["fastmcp", "fastmcp-legacy", "sdk-legacy", "sdk-modern"])
async def test_handle_mode_on_fastmcp_owns_the_handle_argument(client_kind: str) -> None:
    sys.path.insert(0, str(REPO / "examples"))
    from invoice_fastmcp import build_server

    mcp = build_server(mode="handle")

    async def call(client: Any, name: str, arguments: dict[str, Any]) -> Any:
        if client_kind.startswith("fastmcp"):
            return await client.call_tool(name, arguments, raise_on_error=False)
        return await client.call_tool(name, arguments)

    opened: Any = (
        FastMCPClient(mcp, mode="legacy" if client_kind == "fastmcp-legacy" else "auto")
        if client_kind.startswith("fastmcp")
        else Client(mcp._mcp_server, mode="legacy" if client_kind == "sdk-legacy" else MODERN)
    )
    async with opened as client:
        listed = await client.list_tools()
        tools = {t.name: t for t in (listed if isinstance(listed, list) else listed.tools)}
        assert "invoice_id" in tools["submit_invoice"].input_schema["required"]
        created = await call(client, "create_invoice", {"customer": "ACME"})
        handle = created.structured_content["invoice_id"]
        missing = await call(client, "submit_invoice", {})
        assert missing.structured_content["code"] == "HANDLE_REQUIRED"
        added = await call(
            client, "add_line_item", {"invoice_id": handle, "description": "x", "amount": 5}
        )
        assert not added.is_error, added
        submitted = await call(client, "submit_invoice", {"invoice_id": handle})
        assert not submitted.is_error, submitted
        shown = await call(client, "get_invoice", {"invoice_id": handle})
        assert shown.structured_content["state"] == "review"
        assert shown.structured_content["lines"] == [{"description": "x", "amount": 5.0}]
        paid = await call(client, "discharge_invoice", {"invoice_id": handle})
        assert paid.structured_content["code"] == "FORBIDDEN"


async def test_bound_handlers_read_the_call_on_every_server_kind() -> None:
    """Workflow key, state and transition_id through the request context: low-level, MCPServer, FastMCP."""
    seen: dict[str, GateCall | None] = {}

    lowlevel_tools = [
        types.Tool(name="submit", description="Submit.", input_schema={"type": "object"})
    ]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=lowlevel_tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        seen["lowlevel"] = current_call()
        return types.CallToolResult(content=[types.TextContent(type="text", text="ok")])

    lowlevel: Server[Any] = Server("ll", on_list_tools=list_tools, on_call_tool=call_tool)
    mcpserver = MCPServer("mcps")

    @mcpserver.tool()
    def submit() -> str:
        """Submit."""
        seen["mcpserver"] = current_call()
        return "ok"

    fast = FastMCP("fast")

    @fast.tool(name="submit")
    def fast_submit() -> str:
        """Submit."""
        seen["fastmcp"] = current_call()
        return "ok"

    servers: Sequence[tuple[str, Any, Any]] = [
        ("lowlevel", lowlevel, lowlevel),
        ("mcpserver", mcpserver, mcpserver),
        ("fastmcp", fast, fast._mcp_server),
    ]
    for kind, server, wire in servers:
        gate = Gate(INVOICE)
        gate.bind("submit", "draft", "SUBMIT")
        gate.install(server)
        async with Client(wire, mode="legacy") as client:
            assert not (await client.call_tool("submit", {})).is_error
        call = seen[kind]
        assert call is not None, kind
        assert (call.key, call.state, call.transition_id) == (
            "invoice/server:invoice",
            "draft",
            "invoice/server:invoice#1",
        ), kind


def example_stdio(*args: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=[str(FASTMCP_EXAMPLE), *args],
        env=dict(os.environ),
        cwd=str(REPO),
    )


@pytest.mark.parametrize("mode", ["legacy", MODERN])
async def test_fastmcp_example_over_stdio(mode: str) -> None:
    notified: list[Any] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            notified.append(message)

    async with Client(example_stdio(), mode=mode, message_handler=on_message) as client:
        first = await client.list_tools()
        await client.call_tool("add_line_item", {"description": "x", "amount": 3})
        assert not (await client.call_tool("submit_invoice", {})).is_error
        listed = await client.list_tools(cache_mode="refresh")
    if mode == "legacy":
        assert [t.name for t in first.tools] == ["add_line_item", "submit_invoice", "get_invoice"]
        assert [t.name for t in listed.tools] == [
            "approve_invoice",
            "reject_invoice",
            "get_invoice",
        ]
        assert notified, "legacy clients are told on the call's stream"
    else:  # 2026-07-28: one static list, each bound tool declaring its states
        assert listed.tools == first.tools and not notified
        assert {"submit_invoice", "approve_invoice", "get_invoice"} <= {t.name for t in first.tools}


@pytest.mark.parametrize("client_kind", ["sdk-legacy", "sdk-modern", "fastmcp", "fastmcp-legacy"])
async def test_fastmcp_example_over_http_handle_mode(client_kind: str) -> None:
    with http_server(FASTMCP_EXAMPLE, "--mode", "handle") as url:
        if client_kind.startswith("fastmcp"):
            mode = "legacy" if client_kind == "fastmcp-legacy" else "auto"
            async with FastMCPClient(url, mode=mode) as client:
                created = await client.call_tool("create_invoice", {"customer": "A"})
                handle = created.structured_content["invoice_id"]  # type: ignore[index]
                refused = await client.call_tool(
                    "approve_invoice", {"invoice_id": handle}, raise_on_error=False
                )
                assert refused.structured_content["code"] == "FORBIDDEN"  # type: ignore[index]
            return
        mode = "legacy" if client_kind == "sdk-legacy" else MODERN
        async with Client(url, mode=mode) as first, Client(url, mode=mode) as second:
            created = (
                await first.call_tool("create_invoice", {"customer": "A"})
            ).structured_content
            assert created is not None
            handle = created["invoice_id"]
            await first.call_tool(
                "add_line_item", {"invoice_id": handle, "description": "x", "amount": 1}
            )
            assert not (await first.call_tool("submit_invoice", {"invoice_id": handle})).is_error
            theirs = (
                await second.call_tool("create_invoice", {"customer": "B"})
            ).structured_content
            assert theirs is not None
            refused = await second.call_tool(
                "approve_invoice", {"invoice_id": theirs["invoice_id"]}
            )
            assert refused.structured_content is not None
            assert refused.structured_content["code"] == "FORBIDDEN"
            assert not (await second.call_tool("approve_invoice", {"invoice_id": handle})).is_error


async def test_fastmcp_example_over_http_session_mode_refuses_modern_clients_without_a_key() -> (
    None
):
    with http_server(FASTMCP_EXAMPLE) as url:
        async with Client(url, mode="legacy") as legacy:
            assert not (
                await legacy.call_tool("add_line_item", {"description": "x", "amount": 1})
            ).is_error
        async with Client(url, mode=MODERN) as modern:
            refused = await modern.call_tool("add_line_item", {"description": "x", "amount": 1})
            assert refused.structured_content is not None
            assert refused.structured_content["code"] == "NO_WORKFLOW_KEY"
