"""Servers whose gate binds a name they do not serve (issue 22's typo scenarios), on each server kind.

`python closed_world_servers.py KIND SCENARIO` serves one over stdio (for raw JSON-RPC clients).
Each handler appends its name to `ran` (in process) and answers a text a refusal never contains.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import mcp_types as types
from gate_workflows import INVOICE
from mcp.server.lowlevel.server import Server
from mcp.server.mcpserver import MCPServer

from statekit.gate import Gate

KINDS = ("fastmcp", "mcpserver", "lowlevel")

BANK: dict[str, Any] = {
    "id": "bank",
    "initial": "anonymous",
    "states": {
        "anonymous": {"on": {"LOGIN": "authenticated"}},
        "authenticated": {"on": {"LOGOUT": "anonymous"}},
    },
}

#: scenario -> (workflow, served tools, bindings as (name, states, event)), and the tool a test calls.
SCENARIOS: dict[str, tuple[dict[str, Any], list[str], list[tuple[str, Any, str | None]], str]] = {
    # `check_balance_default` is bound; the server serves `check_balance` (and `help`, unbound).
    "balance": (
        BANK,
        ["login", "check_balance", "help"],
        [("login", "anonymous", "LOGIN"), ("check_balance_default", "authenticated", None)],
        "check_balance",
    ),
    # `aprove` beside a real `approve`.
    "aprove": (
        INVOICE,
        ["submit", "approve"],
        [("submit", "draft", "SUBMIT"), ("aprove", "review", "APPROVE")],
        "approve",
    ),
}


def answer(name: str) -> str:
    """What the handler of `name` returns (a refusal never contains it)."""
    return f"HANDLER-RAN:{name}"


#: The names the typos meant.
FIXES = {"check_balance_default": "check_balance", "aprove": "approve"}


def build(kind: str, scenario: str, ran: list[str], *, fix_typos: bool = False) -> tuple[Any, Gate]:
    """A server of `kind` serving the scenario's tools, with its (mismatched) gate installed."""
    workflow, served, bindings, _ = SCENARIOS[scenario]
    gate = Gate(workflow)
    for name, states, event in bindings:
        gate.bind(FIXES.get(name, name) if fix_typos else name, states, event)
    server: Any
    if kind == "fastmcp":
        from fastmcp import FastMCP

        server = FastMCP("typo")
        for name in served:
            server.tool(_handler(name, ran), name=name, description=f"{name}.")
    elif kind == "mcpserver":
        server = MCPServer("typo")
        for name in served:
            server.tool(name=name, description=f"{name}.")(_handler(name, ran))
    elif kind == "lowlevel":

        async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
            return types.ListToolsResult(
                tools=[
                    types.Tool(name=name, description=f"{name}.", input_schema={"type": "object"})
                    for name in served
                ]
            )

        async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
            if params.name not in served:
                return types.CallToolResult(
                    content=[types.TextContent(type="text", text="unknown")], is_error=True
                )
            ran.append(params.name)
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=answer(params.name))]
            )

        server = Server("typo", on_list_tools=list_tools, on_call_tool=call_tool)
    else:
        raise ValueError(kind)
    gate.install(server)
    return server, gate


def _handler(name: str, ran: list[str]) -> Any:
    def handler() -> str:
        ran.append(name)
        return answer(name)

    handler.__name__ = name
    return handler


async def serve_stdio(kind: str, scenario: str) -> None:
    """Serve over stdio until stdin closes."""
    from mcp.server.stdio import stdio_server

    server, _ = build(kind, scenario, [])
    if kind == "fastmcp":
        await server.run_stdio_async(show_banner=False)
        return
    lowlevel = getattr(server, "_lowlevel_server", server)
    async with stdio_server() as (read, write):
        await lowlevel.run(read, write, lowlevel.create_initialization_options())


if __name__ == "__main__":
    asyncio.run(serve_stdio(sys.argv[1], sys.argv[2]))
