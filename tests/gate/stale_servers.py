"""The invoice and refund workflows served by FastMCP, the SDK's `MCPServer` and a low-level `Server`.

The invoice server does what examples/invoice_server.py and examples/invoice_fastmcp.py do
(a submit without line items is an error result); the refund workflow has a guard decided by
the context (`hasEvidence`), a guard on the call's arguments (`validDocument`, which routes can
only assume) and a timer (a 60 s cooling-off period before the refund can be paid).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types
from fastmcp import FastMCP
from gate_workflows import INVOICE
from mcp.server.lowlevel.server import Server
from mcp.server.mcpserver import MCPServer

import statekit
from statekit.gate import Gate, GateCall, current_call

KINDS = ("fastmcp", "mcpserver", "lowlevel")

REFUND: dict[str, Any] = {
    "id": "refund",
    "initial": "requested",
    "context": {"evidence": 0},
    "states": {
        "requested": {
            "on": {
                "ATTACH": {"guard": "validDocument", "actions": "countEvidence"},
                "SUBMIT": {"target": "cooling", "guard": "hasEvidence"},
            }
        },
        "cooling": {"after": {"60000": "payable"}, "on": {"CANCEL": "cancelled"}},
        "payable": {"on": {"PAY": "paid"}},
        "paid": {"type": "final"},
        "cancelled": {"type": "final"},
    },
}


def refund_machine() -> Any:
    return statekit.setup(
        guards={
            "validDocument": lambda args, params: bool(args.event["arguments"].get("document")),
            "hasEvidence": lambda args, params: args.context["evidence"] > 0,
        },
        actions={
            "countEvidence": statekit.assign(
                {"evidence": lambda args, params: args.context["evidence"] + 1}
            )
        },
    ).create_machine(REFUND)


@dataclass
class Clock:
    """The gate's injected wall clock (epoch seconds)."""

    now: float = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    states: str | None
    event: str | None
    #: Runs the tool; returns text, or raises ValueError for an error result.
    body: Callable[[GateCall, dict[str, Any]], str]
    #: JSON Schema properties (all strings), and which are required.
    params: tuple[str, ...] = ()
    required: tuple[str, ...] = ()


@dataclass
class Served:
    server: Any
    gate: Gate
    clock: Clock
    runs: dict[str, int] = field(default_factory=dict)


def invoice_tools(data: dict[str, dict[str, Any]]) -> list[ToolSpec]:
    def lines(call: GateCall) -> list[dict[str, Any]]:
        return data.setdefault(call.key, {"lines": []})["lines"]

    def add(call: GateCall, arguments: dict[str, Any]) -> str:
        lines(call).append({"description": arguments["description"], "amount": float(arguments["amount"])})
        return f"{len(lines(call))} line(s)"

    def submit(call: GateCall, arguments: dict[str, Any]) -> str:
        if not lines(call):
            raise ValueError("the invoice has no line items; add one with add_line_item first")
        return "Invoice submitted for review."

    def discharge(call: GateCall, arguments: dict[str, Any]) -> str:
        return f"Paid {sum(line['amount'] for line in lines(call))} EUR."

    return [
        ToolSpec("add_line_item", "Add a line item (EUR) to the draft.", "draft", None, add,
                 ("description", "amount"), ("description", "amount")),
        ToolSpec("submit_invoice", "Submit the draft for review.", "draft", "SUBMIT", submit),
        ToolSpec("approve_invoice", "Approve the invoice under review.", "review", "APPROVE",
                 lambda call, arguments: "Invoice approved.", ("note",)),
        ToolSpec("reject_invoice", "Send the invoice back to draft.", "review", "REJECT",
                 lambda call, arguments: "Invoice rejected.", ("note",)),
        ToolSpec("discharge_invoice", "Pay out an approved invoice.", "approved", "DISCHARGE", discharge),
        ToolSpec("get_invoice", "Show the invoice.", None, None,
                 lambda call, arguments: f"{len(lines(call))} line(s), state {call.state}"),
    ]


def refund_tools() -> list[ToolSpec]:
    return [
        ToolSpec("attach_evidence", "Attach a receipt to the refund request.", "requested", "ATTACH",
                 lambda call, arguments: f"Attached {arguments['document']}.", ("document",), ("document",)),
        ToolSpec("submit_refund", "Submit the refund request.", "requested", "SUBMIT",
                 lambda call, arguments: "Submitted; payable after the cooling-off period."),
        ToolSpec("cancel_refund", "Cancel a refund during its cooling-off period.", "cooling", "CANCEL",
                 lambda call, arguments: "Cancelled."),
        ToolSpec("pay_refund", "Pay a refund whose cooling-off period is over.", "payable", "PAY",
                 lambda call, arguments: "Refund paid."),
    ]


def _schema(spec: ToolSpec) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": {p: {"type": "string"} for p in spec.params}}
    if spec.required:
        schema["required"] = list(spec.required)
    if spec.name == "add_line_item":
        schema["properties"]["amount"] = {"type": "number"}
    return schema


def build(kind: str, workflow: str, status_tool: str | None = "workflow_status") -> Served:
    """A server of `kind` ("fastmcp", "mcpserver", "lowlevel") serving `workflow` ("invoice", "refund")."""
    clock = Clock()
    data: dict[str, dict[str, Any]] = {}
    specs = invoice_tools(data) if workflow == "invoice" else refund_tools()
    machine = INVOICE if workflow == "invoice" else refund_machine()
    gate = Gate(machine, clock=clock, status_tool=status_tool)
    served = Served(None, gate, clock)

    def run(spec: ToolSpec, call: GateCall, arguments: dict[str, Any]) -> str:
        served.runs[spec.name] = served.runs.get(spec.name, 0) + 1
        return spec.body(call, arguments)

    if kind == "lowlevel":
        server: Any = Server(f"{workflow}-lowlevel")
        for spec in specs:

            async def handler(arguments: dict[str, Any], call: GateCall, spec: ToolSpec = spec) -> Any:
                try:
                    return run(spec, call, arguments)
                except ValueError as error:
                    return types.CallToolResult(
                        content=[types.TextContent(type="text", text=str(error))], is_error=True
                    )

            gate.tool(spec.name, description=spec.description, input_schema=_schema(spec),
                      bind=spec.states, on_success=spec.event)(handler)
    else:
        server = FastMCP(f"{workflow}-fastmcp") if kind == "fastmcp" else MCPServer(f"{workflow}-mcpserver")
        for spec in specs:
            function = _function(spec, run)
            if kind == "fastmcp":
                server.tool(function, name=spec.name, description=spec.description)
            else:
                server.add_tool(function, name=spec.name, description=spec.description)
            gate.bind(spec.name, spec.states, spec.event)
    gate.install(server)
    served.server = server
    return served


def _function(spec: ToolSpec, run: Callable[[ToolSpec, GateCall, dict[str, Any]], str]) -> Callable[..., str]:
    """A plain function with the tool's parameters, as FastMCP and `MCPServer` register them."""

    def call_with(arguments: dict[str, Any]) -> str:
        call = current_call()
        assert call is not None
        return run(spec, call, arguments)

    if spec.name == "add_line_item":

        def add_line_item(description: str, amount: float) -> str:
            return call_with({"description": description, "amount": amount})

        return add_line_item
    if spec.params == ("note",):

        def with_note(note: str = "") -> str:
            return call_with({"note": note})

        return with_note
    if spec.params == ("document",):

        def with_document(document: str) -> str:
            return call_with({"document": document})

        return with_document

    def without_arguments() -> str:
        return call_with({})

    return without_arguments
