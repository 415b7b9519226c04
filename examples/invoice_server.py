"""An invoice approval MCP server whose tools follow a workflow: draft -> review -> approved -> discharged.

The tools are ordinary async functions on the official `mcp` SDK's low-level
`Server`; `statekit.gate` decides which of them the agent sees and may call in
each state, and moves the workflow when a call succeeds.

    python examples/invoice_server.py                      # stdio, one invoice per client session
    python examples/invoice_server.py --http --port 8765    # streamable HTTP on 127.0.0.1
    python examples/invoice_server.py --mode handle         # many invoices, each keyed by invoice_id
    python examples/invoice_server.py --http --store redis://127.0.0.1:6379/0 --mode handle
    python examples/invoice_server.py --agent-view          # run a scripted agent against it, print Markdown

In session mode (the default) each MCP session walks one invoice through the
workflow and its tool list changes as it goes. In handle mode the list is the
same for everyone (as MCP 2026-07-28 requires): `create_invoice` returns an
`invoice_id`, and the other tools take it and refuse calls that are out of order.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

from mcp.server.lowlevel.server import Server
from mcp_types import CallToolResult, TextContent, ToolAnnotations

from statekit.gate import Gate, GateCall, MemoryStore, RedisStore, SQLiteStore, StateStore

INVOICE_WORKFLOW: dict[str, Any] = {
    "id": "invoice",
    "initial": "draft",
    "states": {
        "draft": {"on": {"SUBMIT": "review"}},
        "review": {"on": {"APPROVE": "approved", "REJECT": "draft"}},
        "approved": {"on": {"DISCHARGE": "discharged"}},
        "discharged": {"type": "final"},
    },
}

AMOUNT_SCHEMA = {
    "type": "object",
    "properties": {
        "description": {"type": "string", "description": "What the line is for."},
        "amount": {"type": "number", "exclusiveMinimum": 0, "description": "Amount in EUR."},
    },
    "required": ["description", "amount"],
}
NOTE_SCHEMA = {
    "type": "object",
    "properties": {"note": {"type": "string", "description": "Why (kept in the audit log)."}},
}


def build_server(*, mode: str = "session", store: StateStore | None = None) -> Server[Any]:
    """The invoice server, gated by the invoice workflow."""
    server: Server[Any] = Server("invoice-server", version="1.0.0")
    gate = Gate(
        INVOICE_WORKFLOW,
        store=store if store is not None else MemoryStore(),
        mode="handle" if mode == "handle" else "session",
        state_handle_key="invoice_id" if mode == "handle" else None,
    )
    # The invoices themselves, by workflow key. A real server keeps them in its database.
    invoices: dict[str, dict[str, Any]] = {}

    def invoice_of(call: GateCall) -> dict[str, Any]:
        return invoices.setdefault(call.key, {"lines": [], "log": []})

    if mode == "handle":

        @gate.tool(
            description="Start a new draft invoice for a customer. Returns its invoice_id.",
            input_schema={
                "type": "object",
                "properties": {"customer": {"type": "string"}},
                "required": ["customer"],
            },
            creates_handle=True,
        )
        async def create_invoice(arguments: dict[str, Any], call: GateCall) -> dict[str, Any]:
            invoices[call.key] = {"customer": arguments["customer"], "lines": [], "log": []}
            return {"invoice_id": call.handle, "customer": arguments["customer"], "status": "draft"}

    @gate.tool(
        description=(
            "Add a line item to the draft invoice. Amounts are in EUR and must be positive; "
            "lines can only be added while the invoice is a draft (before submission or after "
            "a rejection)."
        ),
        compact_description="Add a line item (EUR) to the draft.",
        input_schema=AMOUNT_SCHEMA,
        bind="draft",
    )
    async def add_line_item(arguments: dict[str, Any], call: GateCall) -> dict[str, Any]:
        invoice = invoice_of(call)
        invoice["lines"].append(
            {"description": arguments["description"], "amount": arguments["amount"]}
        )
        return {
            "lines": len(invoice["lines"]),
            "total": sum(line["amount"] for line in invoice["lines"]),
        }

    @gate.tool(
        description=(
            "Submit the draft invoice for review. The invoice must have at least one line item; "
            "after submission it can no longer be edited until a reviewer rejects it."
        ),
        compact_description="Submit the draft for review.",
        bind="draft",
        on_success="SUBMIT",
    )
    async def submit_invoice(arguments: dict[str, Any], call: GateCall) -> Any:
        invoice = invoice_of(call)
        if not invoice["lines"]:
            # An isError result fires nothing: the invoice stays a draft.
            return _error("The invoice has no line items; add one with add_line_item first.")
        invoice["log"].append("submitted")
        return f"Invoice submitted for review (total {sum(line['amount'] for line in invoice['lines'])} EUR)."

    @gate.tool(
        description="Approve the invoice under review so that it can be paid.",
        input_schema=NOTE_SCHEMA,
        bind="review",
        on_success="APPROVE",
    )
    async def approve_invoice(arguments: dict[str, Any], call: GateCall) -> str:
        invoice_of(call)["log"].append(f"approved: {arguments.get('note', '')}")
        return "Invoice approved."

    @gate.tool(
        description="Reject the invoice under review and send it back to draft for corrections.",
        input_schema=NOTE_SCHEMA,
        bind="review",
        on_success="REJECT",
    )
    async def reject_invoice(arguments: dict[str, Any], call: GateCall) -> str:
        invoice_of(call)["log"].append(f"rejected: {arguments.get('note', '')}")
        return "Invoice sent back to draft."

    @gate.tool(
        description=(
            "Pay out (discharge) an approved invoice. This moves money and cannot be undone, "
            "so it is only possible once the invoice has been approved."
        ),
        bind="approved",
        on_success="DISCHARGE",
    )
    async def discharge_invoice(arguments: dict[str, Any], call: GateCall) -> str:
        invoice = invoice_of(call)
        invoice["log"].append("discharged")
        return f"Paid {sum(line['amount'] for line in invoice['lines'])} EUR."

    # Unbound, so always visible; in handle mode it still needs to know which invoice.
    @gate.tool(
        description="Show the invoice: its line items, total and audit log.",
        compact_description="Show the invoice.",
        input_schema={"type": "object", "properties": {"invoice_id": {"type": "string"}}}
        if mode == "handle"
        else None,
        annotations=ToolAnnotations(read_only_hint=True),
    )
    async def get_invoice(arguments: dict[str, Any], call: GateCall) -> dict[str, Any]:
        invoice = invoices.get(call.key, {"lines": [], "log": []})
        return {"lines": invoice["lines"], "log": invoice["log"]}

    gate.install(server)
    return server


def _error(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)


def _store_from(spec: str | None) -> StateStore:
    if not spec or spec == "memory":
        return MemoryStore()
    if spec.startswith("redis://"):
        return RedisStore.from_url(spec)
    if spec.startswith("sqlite:"):
        return SQLiteStore(spec.removeprefix("sqlite:"))
    raise SystemExit(f"unknown store {spec!r}: use memory, sqlite:PATH or redis://HOST:PORT/DB")


async def agent_view(mode: str) -> None:
    """Start this server over stdio, walk an invoice through it with the SDK client, print what the agent sees."""
    import os
    import sys

    import mcp_types as types
    from mcp import Client, StdioServerParameters

    changed: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.append(message.method)

    params = StdioServerParameters(
        command=sys.executable, args=[__file__, "--mode", mode], env=dict(os.environ)
    )
    async with Client(params, mode="legacy", message_handler=on_message) as client:

        async def show_list() -> None:
            listed = await client.list_tools()
            print("`tools/list`:\n")
            for tool in listed.tools:
                print(f"- `{tool.name}`: {tool.description}")
            print()

        async def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
            before = len(changed)
            print(f"**call** `{name}` `{json.dumps(arguments)}`\n")
            result = await client.call_tool(name, arguments)
            label = "isError result" if result.is_error else "result"
            print(f"{label}:\n\n```text")
            for block in result.content:
                if isinstance(block, types.TextContent):
                    print(block.text)
            print("```\n")
            if len(changed) > before:
                print("→ the server sent `notifications/tools/list_changed`\n")
            return result.structured_content or {}

        handle: dict[str, Any] = {}
        print(f"#### Mode `{mode}`\n")
        await show_list()
        if mode == "handle":
            created = await call("create_invoice", {"customer": "ACME GmbH"})
            handle = {"invoice_id": created["invoice_id"]}
        await call("discharge_invoice", {**handle})
        await call(
            "add_line_item", {**handle, "description": "Consulting, October", "amount": 1200}
        )
        await call("submit_invoice", {**handle})
        if mode == "session":
            await show_list()
        await call("approve_invoice", {**handle, "note": "within budget"})
        if mode == "session":
            await show_list()
        await call("discharge_invoice", {**handle})
        if mode == "session":
            await show_list()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--http", action="store_true", help="serve streamable HTTP instead of stdio"
    )
    parser.add_argument(
        "--port", type=int, default=8765, help="HTTP port on 127.0.0.1 (default 8765)"
    )
    parser.add_argument("--mode", choices=("session", "handle"), default="session")
    parser.add_argument("--store", help="memory (default), sqlite:PATH or redis://HOST:PORT/DB")
    parser.add_argument(
        "--agent-view",
        action="store_true",
        help="drive this server with a scripted agent, print Markdown",
    )
    args = parser.parse_args()
    if args.agent_view:
        asyncio.run(agent_view(args.mode))
        return
    server = build_server(mode=args.mode, store=_store_from(args.store))
    if args.http:
        import uvicorn

        uvicorn.run(
            server.streamable_http_app(), host="127.0.0.1", port=args.port, log_level="warning"
        )
    else:
        from mcp.server.stdio import stdio_server

        async def serve_stdio() -> None:
            async with stdio_server() as (read_stream, write_stream):
                await server.run(read_stream, write_stream, server.create_initialization_options())

        asyncio.run(serve_stdio())


if __name__ == "__main__":
    main()
