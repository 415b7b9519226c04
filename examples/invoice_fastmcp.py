"""The invoice example on FastMCP 4.x: ordinary `@mcp.tool` functions, gated with `gate.bind`.

    pip install 'fastmcp>=4.2.3,<5'
    python examples/invoice_fastmcp.py                     # stdio, one invoice per client
    python examples/invoice_fastmcp.py --http --port 8765  # streamable HTTP on 127.0.0.1
    python examples/invoice_fastmcp.py --mode handle       # many invoices, keyed by invoice_id

The gate is a FastMCP middleware: the tools below know nothing about the workflow.
They read the workflow they belong to (`key`, `state`, `handle`, `transition_id`) with
`statekit.gate.current_call()`. In handle mode the gate owns the `invoice_id`
argument: it appears in the listed schemas, and the gate takes it out before FastMCP
validates the call against each function's signature.

Over HTTP in session mode, each legacy session has its own invoice; 2026-07-28 clients
without authentication are refused (no session to key by): use `--mode handle`, or
`--shared` to let every such client share one invoice on purpose.
"""

from __future__ import annotations

import argparse
from typing import Any

from fastmcp import FastMCP

from statekit.gate import (
    Gate,
    GateCall,
    MemoryStore,
    RedisStore,
    SQLiteStore,
    StateStore,
    current_call,
)

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


def _call() -> GateCall:
    call = current_call()
    if call is None:  # only reachable if the gate was not installed
        raise RuntimeError("this tool must be called through the gate")
    return call


def build_server(
    *, mode: str = "session", store: StateStore | None = None, shared: bool = False
) -> FastMCP:
    """The invoice server on FastMCP, gated by the invoice workflow."""
    mcp = FastMCP("invoice-fastmcp")
    invoices: dict[str, dict[str, Any]] = {}

    def invoice() -> dict[str, Any]:
        return invoices.setdefault(_call().key, {"lines": [], "log": []})

    if mode == "handle":

        @mcp.tool
        def create_invoice(customer: str) -> dict[str, Any]:
            """Start a new draft invoice for a customer. Returns its invoice_id."""
            call = _call()
            invoices[call.key] = {"customer": customer, "lines": [], "log": []}
            return {"invoice_id": call.handle, "customer": customer, "status": "draft"}

    @mcp.tool
    def add_line_item(description: str, amount: float) -> dict[str, Any]:
        """Add a line item (EUR, positive) to the draft invoice."""
        if amount <= 0:
            raise ValueError("amounts must be positive")
        lines = invoice()["lines"]
        lines.append({"description": description, "amount": amount})
        return {"lines": len(lines), "total": sum(line["amount"] for line in lines)}

    @mcp.tool
    def submit_invoice() -> str:
        """Submit the draft invoice for review. It needs at least one line item."""
        data = invoice()
        if not data["lines"]:
            raise ValueError("add at least one line item first")
        return (
            f"Invoice submitted for review (total {sum(x['amount'] for x in data['lines'])} EUR)."
        )

    @mcp.tool
    def approve_invoice(note: str = "") -> str:
        """Approve the invoice under review so that it can be paid."""
        invoice()["log"].append(f"approved: {note}")
        return "Invoice approved."

    @mcp.tool
    def reject_invoice(note: str = "") -> str:
        """Reject the invoice under review and send it back to draft."""
        invoice()["log"].append(f"rejected: {note}")
        return "Invoice rejected."

    @mcp.tool
    def discharge_invoice() -> str:
        """Pay out an approved invoice. Moves money; only possible once approved."""
        call = _call()
        # transition_id is the idempotency key to hand to the payment provider.
        total = sum(line["amount"] for line in invoice()["lines"])
        return f"Paid {total} EUR (payment reference {call.transition_id})."

    @mcp.tool
    def get_invoice() -> dict[str, Any]:
        """Show the invoice: its line items, total and audit log."""
        call = _call()
        if not call.key:
            raise ValueError("pass the invoice_id returned by create_invoice")
        return {"workflow": call.key, "state": call.state, **invoice()}

    gate = Gate(
        INVOICE_WORKFLOW,
        store=store if store is not None else MemoryStore(),
        mode="handle" if mode == "handle" else "session",
        state_handle_key="invoice_id" if mode == "handle" else None,
        shared_fallback=shared,
    )
    if mode == "handle":
        gate.bind("create_invoice", creates_handle=True)
    gate.bind("add_line_item", "draft", compact_description="Add a line item.")
    gate.bind("submit_invoice", "draft", "SUBMIT", compact_description="Submit for review.")
    gate.bind("approve_invoice", "review", "APPROVE")
    gate.bind("reject_invoice", "review", "REJECT")
    gate.bind("discharge_invoice", "approved", "DISCHARGE")
    gate.bind("get_invoice")
    gate.install(mcp)
    return mcp


def store_from(spec: str | None) -> StateStore:
    """`memory` (default), `sqlite:PATH` or a `redis://` URL."""
    if spec is None or spec == "memory":
        return MemoryStore()
    if spec.startswith("sqlite:"):
        return SQLiteStore(spec.removeprefix("sqlite:"))
    if spec.startswith(("redis://", "rediss://")):
        return RedisStore.from_url(spec)
    raise SystemExit(f"unknown store {spec!r}: use memory, sqlite:PATH or redis://...")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--http", action="store_true", help="serve streamable HTTP on 127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--mode", choices=("session", "handle"), default="session")
    parser.add_argument("--store", help="memory (default), sqlite:PATH or redis://HOST:PORT/DB")
    parser.add_argument(
        "--shared",
        action="store_true",
        help="let HTTP clients without session or auth share one invoice (unsafe)",
    )
    args = parser.parse_args()
    mcp = build_server(mode=args.mode, store=store_from(args.store), shared=args.shared)
    if args.http:
        mcp.run(transport="http", host="127.0.0.1", port=args.port, show_banner=False)
    else:
        mcp.run(show_banner=False)


if __name__ == "__main__":
    main()
