"""Wherever the gate is unsure it refuses: missing handles, no workflow key, store faults."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from gate_helpers import EXAMPLE, free_port, http_server
from gate_workflows import INVOICE
from mcp import Client, StdioServerParameters
from mcp.server.lowlevel.server import Server
from mcp.shared.exceptions import MCPError

from statekit.gate import Gate, GateCall, MemoryStore, RedisStore, SQLiteStore, StateStore
from statekit.gate.errors import LIST_REFUSED_RPC_CODE

MODERN = "2026-07-28"


def handle_server(store: StateStore) -> tuple[Server[Any], list[str]]:
    server: Server[Any] = Server("fail-closed")
    ran: list[str] = []
    gate = Gate(INVOICE, store=store, mode="handle", state_handle_key="invoice_id")

    @gate.tool(description="Start an invoice.", creates_handle=True)
    async def create_invoice(arguments: dict[str, Any], call: GateCall) -> dict[str, Any]:
        return {"invoice_id": call.handle}

    @gate.tool(description="Submit.", bind="draft", on_success="SUBMIT")
    async def submit_invoice(arguments: dict[str, Any], call: GateCall) -> str:
        ran.append("submit_invoice")
        return "submitted"

    gate.install(server)
    return server, ran


@pytest.mark.parametrize("given", [None, "", 42, ["x"]])
async def test_handle_mode_refuses_a_bound_call_without_a_valid_handle(given: Any) -> None:
    server, ran = handle_server(MemoryStore())
    async with Client(server, mode=MODERN) as client:
        await client.call_tool("create_invoice", {})
        arguments = {} if given is None else {"invoice_id": given}
        refused = await client.call_tool("submit_invoice", arguments)
    assert refused.is_error and refused.structured_content is not None
    assert refused.structured_content["code"] == "HANDLE_REQUIRED"
    assert "create_invoice" in refused.structured_content["message"]
    assert ran == []


def session_server(store: StateStore) -> tuple[Server[Any], Gate, list[str]]:
    server: Server[Any] = Server("sessions")
    ran: list[str] = []
    gate = Gate(INVOICE, store=store)

    @gate.tool(description="Submit.", bind="draft", on_success="SUBMIT")
    async def submit_invoice(arguments: dict[str, Any], call: GateCall) -> str:
        ran.append(call.key)
        return "submitted"

    @gate.tool(description="Approve.", bind="review", on_success="APPROVE")
    async def approve_invoice(arguments: dict[str, Any], call: GateCall) -> str:
        ran.append(call.key)
        return "approved"

    gate.install(server)
    return server, gate, ran


CORRUPTIONS = {
    "garbage json": "{not json",
    "unknown state": '{"snapshot":{"value":"paid_twice","context":{}},"step":1}',
    "missing snapshot": '{"step":1}',
    "bad step": '{"snapshot":{"value":"draft","context":{}},"step":"many"}',
    "bad timer": '{"snapshot":{"value":"draft","context":{}},"step":1,"timers":[{"id":1}]}',
}


@pytest.mark.parametrize("corruption", sorted(CORRUPTIONS))
async def test_a_corrupted_record_is_a_coded_refusal_naming_the_workflow(corruption: str) -> None:
    store = MemoryStore()
    server, gate, ran = session_server(store)
    await store.save("invoice/server:invoice", CORRUPTIONS[corruption], None)
    async with Client(server, mode="legacy") as client:
        with pytest.raises(MCPError) as raised:
            await client.list_tools()
        assert raised.value.error.code == LIST_REFUSED_RPC_CODE
        assert raised.value.error.data["code"] == "CORRUPT_RECORD"
        assert raised.value.error.data["workflow"] == "invoice/server:invoice"
        refused = await client.call_tool("submit_invoice", {})
        assert refused.is_error and refused.structured_content is not None
        assert refused.structured_content["code"] == "CORRUPT_RECORD"
        assert refused.structured_content["workflow"] == "invoice/server:invoice"
        assert refused.structured_content["retryable"] is False
        assert ran == []
        # Repaired with the admin API, the same connection works again.
        inspected = await gate.admin.inspect("server:invoice")
        assert inspected is not None and "corrupt" in inspected
        await gate.admin.reset("server:invoice")
        assert not (await client.call_tool("submit_invoice", {})).is_error
    assert ran == ["invoice/server:invoice"]


async def test_redis_faults_are_coded(redis_url: str) -> None:
    import redis.asyncio

    raw = redis.asyncio.Redis.from_url(redis_url)
    store = RedisStore(raw, key_prefix="faults:")
    server, _gate, ran = session_server(store)
    async with Client(server, mode="legacy") as client:
        for write in (
            lambda: raw.set("faults:invoice/server:invoice", "a string"),
            lambda: raw.hset("faults:invoice/server:invoice", mapping={"v": "x1", "d": "{}"}),
            lambda: raw.hset("faults:invoice/server:invoice", mapping={"d": "{}"}),
        ):
            await raw.delete("faults:invoice/server:invoice")
            await write()
            refused = await client.call_tool("submit_invoice", {})
            assert refused.structured_content is not None
            assert refused.structured_content["code"] == "CORRUPT_RECORD", refused
            assert refused.structured_content["workflow"] == "invoice/server:invoice"
        assert ran == []
        await raw.delete("faults:invoice/server:invoice")
        assert not (await client.call_tool("submit_invoice", {})).is_error
    await raw.delete("faults:invoice/server:invoice")
    await raw.aclose()


async def test_redis_down_is_retryable_and_never_an_internal_error() -> None:
    store = RedisStore.from_url(f"redis://127.0.0.1:{free_port()}/0")
    server, _gate, ran = session_server(store)
    async with Client(server, mode="legacy") as client:
        with pytest.raises(MCPError) as raised:
            await client.list_tools()
        assert raised.value.error.code == LIST_REFUSED_RPC_CODE
        assert raised.value.error.data == {
            "code": "STORE_UNAVAILABLE",
            "workflow": "invoice/server:invoice",
            "retryable": True,
        }
        refused = await client.call_tool("submit_invoice", {})
        assert refused.structured_content is not None
        assert refused.structured_content["code"] == "STORE_UNAVAILABLE"
        assert refused.structured_content["retryable"] is True
    assert ran == []
    await store.aclose()


STDIO_SERVER = """
import sys, asyncio
sys.path.insert(0, {tests!r})
from typing import Any
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server
from gate_workflows import INVOICE
from statekit.gate import Gate, GateCall, SQLiteStore

server = Server("restartable")
gate = Gate(INVOICE, store=SQLiteStore({db!r}))

@gate.tool(description="Submit.", bind="draft", on_success="SUBMIT")
async def submit_invoice(arguments: dict[str, Any], call: GateCall) -> str:
    return "submitted"

@gate.tool(description="Approve.", bind="review", on_success="APPROVE")
async def approve_invoice(arguments: dict[str, Any], call: GateCall) -> str:
    return "approved"

gate.install(server)

async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())

asyncio.run(main())
"""


async def test_a_stdio_workflow_resumes_after_a_restart(tmp_path: Path) -> None:
    script = tmp_path / "server.py"
    db = tmp_path / "state.db"
    script.write_text(STDIO_SERVER.format(tests=str(Path(__file__).parent), db=str(db)))
    params = StdioServerParameters(command=sys.executable, args=[str(script)], env=dict(os.environ))
    async with Client(params, mode="legacy") as client:
        assert not (await client.call_tool("submit_invoice", {})).is_error
    async with Client(params, mode="legacy") as client:
        # A new process: same workflow, still in review.
        assert [t.name for t in (await client.list_tools()).tools] == ["approve_invoice"]
    store = SQLiteStore(db)
    assert [key async for key in store.keys()] == ["invoice/server:invoice"]  # noqa: SIM118
    store.close()


async def test_http_without_session_handle_or_principal_shares_nothing() -> None:
    """`python examples/invoice_server.py --http`, two 2026-07-28 clients without auth."""
    with http_server(EXAMPLE) as url:
        async with Client(url, mode=MODERN) as first, Client(url, mode=MODERN) as second:
            # The static 2026-07-28 list needs no workflow; the call path does.
            listed = [tool.name for tool in (await first.list_tools()).tools]
            assert {"submit_invoice", "get_invoice"} <= set(listed)
            refused = await first.call_tool("submit_invoice", {})
            assert refused.structured_content is not None
            assert refused.structured_content["code"] == "NO_WORKFLOW_KEY"
            assert "shared_fallback=True" in refused.structured_content["message"]
            refused = await second.call_tool("add_line_item", {"description": "x", "amount": 1})
            assert refused.structured_content is not None
            assert refused.structured_content["code"] == "NO_WORKFLOW_KEY"
            # The always-visible tool still runs; it just has no workflow to show.
            shown = await second.call_tool("get_invoice", {})
            assert not shown.is_error


STATELESS_SERVER = """
import sys
sys.path.insert(0, {tests!r})
from typing import Any
import uvicorn
from mcp.server.lowlevel.server import Server
from gate_workflows import INVOICE
from statekit.gate import Gate, GateCall

server = Server("stateless")
gate = Gate(INVOICE, shared_fallback={shared!r})

@gate.tool(description="Submit.", bind="draft", on_success="SUBMIT")
async def submit_invoice(arguments: dict[str, Any], call: GateCall) -> str:
    return "submitted"

gate.install(server)
port = int(sys.argv[sys.argv.index("--port") + 1])
uvicorn.run(server.streamable_http_app(stateless_http=True), host="127.0.0.1", port=port,
            log_level="warning")
"""


@pytest.mark.parametrize("shared", [False, True])
async def test_stateless_legacy_http_refuses_unless_the_author_shares(
    tmp_path: Path, shared: bool
) -> None:
    script = tmp_path / "stateless.py"
    script.write_text(STATELESS_SERVER.format(tests=str(Path(__file__).parent), shared=shared))
    with http_server(script) as url:
        async with Client(url, mode="legacy") as first, Client(url, mode="legacy") as second:
            result = await first.call_tool("submit_invoice", {})
            if not shared:
                assert result.structured_content is not None
                assert result.structured_content["code"] == "NO_WORKFLOW_KEY"
                return
            assert not result.is_error
            # Asked for explicitly: every keyless client shares the one workflow.
            refused = await second.call_tool("submit_invoice", {})
            assert refused.structured_content is not None
            assert refused.structured_content["code"] == "FORBIDDEN"
