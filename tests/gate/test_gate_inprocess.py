"""The gate through the SDK's real client, connected in-process to a low-level `Server`."""

from __future__ import annotations

import asyncio
from typing import Any

import mcp_types as types
import pytest
from gate_workflows import INVOICE, SHIPMENT
from mcp import Client
from mcp.server.lowlevel.server import Server

import statekit
from statekit.gate import Gate, GateCall, MemoryStore, StateStore
from statekit.gate.results import META_KEY

LEGACY = "legacy"
MODERN = "2026-07-28"


def invoice_server(
    mode: str = "session", store: StateStore | None = None, *, modern_list: Any = "static"
) -> tuple[Server[Any], Gate, dict[str, int]]:
    """A small invoice server; `calls` counts handler runs per tool."""
    server: Server[Any] = Server("test-invoice")
    gate = Gate(
        INVOICE,
        store=store if store is not None else MemoryStore(),
        mode="handle" if mode == "handle" else "session",
        state_handle_key="invoice_id" if mode == "handle" else None,
        modern_list=modern_list,
    )
    calls: dict[str, int] = {}

    def counted(name: str) -> None:
        calls[name] = calls.get(name, 0) + 1

    if mode == "handle":

        @gate.tool(description="Start an invoice.", creates_handle=True)
        async def create_invoice(arguments: dict[str, Any], call: GateCall) -> dict[str, Any]:
            counted("create_invoice")
            return {"invoice_id": call.handle}

    @gate.tool(
        description="Submit the draft invoice for review; it must have line items.",
        compact_description="Submit the draft.",
        bind="draft",
        on_success="SUBMIT",
    )
    async def submit_invoice(arguments: dict[str, Any], call: GateCall) -> Any:
        counted("submit_invoice")
        if arguments.get("fail") == "error":
            return types.CallToolResult(
                content=[types.TextContent(type="text", text="no lines")], is_error=True
            )
        if arguments.get("fail") == "raise":
            raise RuntimeError("database is down")
        return "submitted"

    @gate.tool(
        description="Approve the invoice under review.", bind="invoice.review", on_success="APPROVE"
    )
    async def approve_invoice(arguments: dict[str, Any], call: GateCall) -> str:
        counted("approve_invoice")
        await asyncio.sleep(0.01)
        return "approved"

    @gate.tool(description="Reject the invoice under review.", bind="review", on_success="REJECT")
    async def reject_invoice(arguments: dict[str, Any], call: GateCall) -> str:
        counted("reject_invoice")
        return "rejected"

    @gate.tool(description="Pay an approved invoice.", bind=["approved"], on_success="DISCHARGE")
    async def discharge_invoice(arguments: dict[str, Any], call: GateCall) -> str:
        counted("discharge_invoice")
        return "paid"

    @gate.tool(description="Show the invoice.", compact_description="Show it.")
    async def get_invoice(arguments: dict[str, Any], call: GateCall) -> dict[str, Any]:
        counted("get_invoice")
        return {"key": call.key, "state": call.state}

    gate.install(server)
    return server, gate, calls


ALL_TOOLS = [
    "submit_invoice",
    "approve_invoice",
    "reject_invoice",
    "discharge_invoice",
    "get_invoice",
]


async def names(client: Client) -> list[str]:
    return [tool.name for tool in (await client.list_tools()).tools]


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


@pytest.mark.parametrize("mode", [LEGACY, MODERN])
async def test_list_follows_the_workflow(mode: str) -> None:
    """Legacy sessions always; 2026-07-28 clients only with the opt-in `modern_list="by_state"`."""
    server, _, _ = invoice_server(modern_list="by_state")
    async with Client(server, mode=mode) as client:
        assert await names(client) == ["submit_invoice", "get_invoice"]
        assert not (await client.call_tool("submit_invoice", {})).is_error
        assert await names(client) == ["approve_invoice", "reject_invoice", "get_invoice"]
        assert not (await client.call_tool("reject_invoice", {})).is_error
        assert await names(client) == ["submit_invoice", "get_invoice"]
        await client.call_tool("submit_invoice", {})
        await client.call_tool("approve_invoice", {})
        assert await names(client) == ["discharge_invoice", "get_invoice"]
        await client.call_tool("discharge_invoice", {})
        assert await names(client) == ["get_invoice"]


async def test_compact_descriptions_only_in_the_initial_state() -> None:
    server, _, _ = invoice_server()
    async with Client(server, mode=LEGACY) as client:
        described = {t.name: t.description for t in (await client.list_tools()).tools}
        assert described == {"submit_invoice": "Submit the draft.", "get_invoice": "Show it."}
        await client.call_tool("submit_invoice", {})
        described = {t.name: t.description for t in (await client.list_tools()).tools}
        assert described["get_invoice"] == "Show the invoice."
        await client.call_tool("reject_invoice", {})
        described = {t.name: t.description for t in (await client.list_tools()).tools}
        assert described["submit_invoice"] == "Submit the draft."


@pytest.mark.parametrize("mode", [LEGACY, MODERN])
async def test_guessed_tool_is_forbidden_before_its_handler_runs(mode: str) -> None:
    server, _, calls = invoice_server()
    async with Client(server, mode=mode) as client:
        listed = await names(client)
        result = await client.call_tool("discharge_invoice", {})
        assert result.is_error
        assert calls.get("discharge_invoice") is None
        payload = result.structured_content
        assert payload is not None
        assert payload["code"] == "FORBIDDEN"
        assert payload["state"] == "draft"
        # 2026-07-28 lists every tool (statically); legacy lists what is allowed now.
        assert payload["allowedTools"] == ["submit_invoice", "get_invoice"]
        assert listed == (payload["allowedTools"] if mode == LEGACY else ALL_TOOLS)
        assert 'FORBIDDEN: Tool "discharge_invoice"' in text_of(result)
        assert "submit_invoice, get_invoice" in text_of(result)


async def test_error_result_and_exception_fire_nothing() -> None:
    server, _, calls = invoice_server()
    async with Client(server, mode=LEGACY) as client:
        failed = await client.call_tool("submit_invoice", {"fail": "error"})
        assert failed.is_error and text_of(failed) == "no lines"
        raised = await client.call_tool("submit_invoice", {"fail": "raise"})
        assert raised.is_error and "database is down" in text_of(raised)
        assert calls["submit_invoice"] == 2
        assert await names(client) == ["submit_invoice", "get_invoice"]
        # The lease was released: the next call goes through.
        assert not (await client.call_tool("submit_invoice", {})).is_error


async def test_success_names_the_tools_available_now() -> None:
    server, _, _ = invoice_server()
    async with Client(server, mode=LEGACY) as client:
        result = await client.call_tool("submit_invoice", {})
        assert text_of(result).splitlines() == [
            "submitted",
            "Workflow state: review. Tools available now: approve_invoice, reject_invoice, get_invoice.",
        ]
        assert result.meta is not None
        assert result.meta[META_KEY] == {
            "state": "review",
            "allowedTools": ["approve_invoice", "reject_invoice", "get_invoice"],
        }


async def test_unbound_tools_see_and_report_the_state() -> None:
    server, _, _ = invoice_server()
    async with Client(server, mode=LEGACY) as client:
        await client.call_tool("submit_invoice", {})
        result = await client.call_tool("get_invoice", {})
        assert result.structured_content is not None
        assert result.structured_content["state"] == "review"
        assert "Tools available now: approve_invoice, reject_invoice, get_invoice." in text_of(
            result
        )
    handle_server, _, _ = invoice_server(mode="handle")
    async with Client(handle_server, mode=MODERN) as client:
        created = (await client.call_tool("create_invoice", {})).structured_content
        assert created is not None
        result = await client.call_tool("get_invoice", {"invoice_id": created["invoice_id"]})
        assert result.structured_content is not None
        assert result.structured_content["state"] == "draft"
        without_handle = await client.call_tool("get_invoice", {})
        assert without_handle.structured_content is not None
        assert without_handle.structured_content["state"] is None
        assert "Tools available now" not in text_of(without_handle)


async def test_list_changed_is_sent_on_the_calls_stream_only_when_the_list_changes() -> None:
    server, _, _ = invoice_server()
    received: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            received.append(message.method)

    async with Client(server, mode=LEGACY, message_handler=on_message) as client:
        assert client.server_capabilities.tools is not None
        assert client.server_capabilities.tools.list_changed is True
        await client.call_tool("get_invoice", {})
        await client.call_tool("submit_invoice", {"fail": "error"})
        assert received == []
        await client.call_tool("submit_invoice", {})
        assert received == ["notifications/tools/list_changed"]


async def test_modern_list_is_private_and_uncacheable() -> None:
    server, _, _ = invoice_server(modern_list="by_state")
    async with Client(server, mode=MODERN) as client:
        listed = await client.list_tools()
        assert listed.ttl_ms == 0
        assert listed.cache_scope == "private"


async def test_modern_listen_stream_gets_list_changed() -> None:
    server, _, _ = invoice_server(modern_list="by_state")
    async with (
        Client(server, mode=MODERN) as client,
        client.listen(tools_list_changed=True) as events,
    ):
        await client.call_tool("submit_invoice", {})
        async with asyncio.timeout(10):
            event = await anext(aiter(events))
        assert type(event).__name__ == "ToolsListChanged"
        assert await names(client) == ["approve_invoice", "reject_invoice", "get_invoice"]


async def test_handle_mode_lists_everything_and_keys_state_by_handle() -> None:
    server, gate, calls = invoice_server(mode="handle")
    async with Client(server, mode=MODERN) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert list(tools) == [
            "create_invoice",
            "submit_invoice",
            "approve_invoice",
            "reject_invoice",
            "discharge_invoice",
            "get_invoice",
        ]
        assert "invoice_id" in tools["approve_invoice"].input_schema["required"]
        assert "invoice_id" not in tools["create_invoice"].input_schema.get("properties", {})
        # An always-visible tool may take the handle (to report that workflow's state), optionally.
        assert "invoice_id" in tools["get_invoice"].input_schema["properties"]
        assert "invoice_id" not in tools["get_invoice"].input_schema.get("required", [])
        assert "Allowed only while the workflow is in: review." in (
            tools["approve_invoice"].description or ""
        )

        first = (await client.call_tool("create_invoice", {})).structured_content
        second = (await client.call_tool("create_invoice", {})).structured_content
        assert first is not None and second is not None
        one, two = first["invoice_id"], second["invoice_id"]
        assert one != two
        submitted = await client.call_tool("submit_invoice", {"invoice_id": one})
        assert not submitted.is_error
        assert f'Workflow invoice_id="{one}" is in state review' in text_of(submitted)

        # The second invoice did not move: approving it is out of order.
        refused = await client.call_tool("approve_invoice", {"invoice_id": two})
        assert refused.is_error and refused.structured_content is not None
        assert refused.structured_content["code"] == "FORBIDDEN"
        assert refused.structured_content["state"] == "draft"
        assert not (await client.call_tool("approve_invoice", {"invoice_id": one})).is_error
        assert (await gate.snapshot_of(handle=one)).value == "approved"
        assert (await gate.snapshot_of(handle=two)).value == "draft"
        assert calls["approve_invoice"] == 1


async def test_unknown_handle_is_not_a_new_workflow() -> None:
    server, _, calls = invoice_server(mode="handle")
    async with Client(server, mode=MODERN) as client:
        result = await client.call_tool("submit_invoice", {"invoice_id": "guessed"})
        assert result.is_error and result.structured_content is not None
        assert result.structured_content["code"] == "NOT_FOUND"
        assert "create_invoice" in text_of(result)
        assert result.structured_content["allowedTools"] == ["create_invoice", "get_invoice"]
        assert "submit_invoice" not in calls


async def test_concurrent_calls_on_one_handle_have_one_winner() -> None:
    server, gate, calls = invoice_server(mode="handle")
    async with Client(server, mode=MODERN) as client:
        created = (await client.call_tool("create_invoice", {})).structured_content
        assert created is not None
        handle = created["invoice_id"]
        await client.call_tool("submit_invoice", {"invoice_id": handle})
        results = await asyncio.gather(
            *(client.call_tool("approve_invoice", {"invoice_id": handle}) for _ in range(20))
        )
    winners = [r for r in results if not r.is_error]
    assert len(winners) == 1
    assert calls["approve_invoice"] == 1
    assert all(
        r.structured_content is not None
        and r.structured_content["code"] in ("FORBIDDEN", "CONFLICT")
        for r in results
        if r.is_error
    )
    assert (await gate.snapshot_of(handle=handle)).value == "approved"
    assert len(gate._locks) == 0


async def test_restored_snapshot_survives_a_new_gate() -> None:
    store = MemoryStore()
    server, _, _ = invoice_server(mode="handle", store=store)
    async with Client(server, mode=MODERN) as client:
        created = (await client.call_tool("create_invoice", {})).structured_content
        assert created is not None
        await client.call_tool("submit_invoice", {"invoice_id": created["invoice_id"]})
    restarted, _, _ = invoice_server(mode="handle", store=store)
    async with Client(restarted, mode=MODERN) as client:
        refused = await client.call_tool("submit_invoice", {"invoice_id": created["invoice_id"]})
        assert refused.structured_content is not None
        assert refused.structured_content["state"] == "review"
        assert not (
            await client.call_tool("approve_invoice", {"invoice_id": created["invoice_id"]})
        ).is_error


def shipment_server() -> tuple[Server[Any], Gate]:
    machine = statekit.setup(
        guards={"fullAmount": lambda args, params: args.event["arguments"].get("amount", 0) >= 100}
    ).create_machine(SHIPMENT)
    server: Server[Any] = Server("test-shipment")
    gate = Gate(machine)
    steps = {
        "pick": ("packing.picking", "PICKED"),
        "box": ("shipment.packing.boxing", "BOXED"),
        "clear_customs": ("checks.customs.pending", "CLEARED"),
        "pay": ("checks.payment.pending", "PAID"),
        "dispatch": ("checks", "DISPATCH"),
    }
    for name, (state, event) in steps.items():

        async def handler(arguments: dict[str, Any], call: GateCall) -> str:
            return f"{call.tool} done"

        gate.tool(name, description=f"{name} step.", bind=state, on_success=event)(handler)

    @gate.tool(description="Where is the shipment?", bind="packing")
    async def track(arguments: dict[str, Any], call: GateCall) -> str:
        return "in the warehouse"

    gate.install(server)
    return server, gate


async def test_nested_and_parallel_states_and_guards() -> None:
    server, _ = shipment_server()
    async with Client(server, mode=LEGACY) as client:
        assert await names(client) == ["pick", "track"]
        await client.call_tool("pick", {})
        assert await names(client) == ["box", "track"]
        result = await client.call_tool("box", {})
        assert result.meta is not None
        assert result.meta[META_KEY]["state"] == {
            "checks": {"customs": "pending", "payment": "pending"}
        }
        assert await names(client) == ["clear_customs", "pay", "dispatch"]
        # The guard rejects a partial payment: the call succeeds, the state stays.
        await client.call_tool("pay", {"amount": 40})
        assert await names(client) == ["clear_customs", "pay", "dispatch"]
        await client.call_tool("pay", {"amount": 100})
        assert await names(client) == ["clear_customs", "dispatch"]
        await client.call_tool("clear_customs", {})
        assert await names(client) == ["dispatch"]
        await client.call_tool("dispatch", {})
        assert await names(client) == []


async def test_an_active_lease_blocks_and_an_expired_one_is_taken_over(tmp_path: Any) -> None:
    from statekit.gate import SQLiteStore
    from statekit.gate.record import Lease, encode_record

    store = SQLiteStore(tmp_path / "lease.db")
    server, gate, calls = invoice_server(mode="handle", store=store)
    async with Client(server, mode=MODERN) as client:
        created = (await client.call_tool("create_invoice", {})).structured_content
        assert created is not None
        handle = created["invoice_id"]
        loaded = await store.load(f"invoice/handle:{handle}")
        assert loaded is not None
        snapshot = await gate.snapshot_of(handle=handle)
        # Another process reserved SUBMIT and is still running its handler.
        held = Lease("other", "submit_invoice", "SUBMIT", expires_at=4102444800.0)
        version = await store.save(
            f"invoice/handle:{handle}", encode_record(snapshot, held, 0)[0], loaded[1]
        )
        blocked = await client.call_tool("submit_invoice", {"invoice_id": handle})
        assert blocked.structured_content is not None
        assert blocked.structured_content["code"] == "CONFLICT"
        assert "submit_invoice" not in calls
        # That process died: once its lease expires, the workflow is usable again.
        dead = Lease("other", "submit_invoice", "SUBMIT", expires_at=1.0)
        await store.save(f"invoice/handle:{handle}", encode_record(snapshot, dead, 0)[0], version)
        assert not (await client.call_tool("submit_invoice", {"invoice_id": handle})).is_error
        assert (await gate.snapshot_of(handle=handle)).value == "review"
        stored = await store.load(f"invoice/handle:{handle}")
        assert stored is not None and '"lease"' not in stored[0]
        assert '"updatedAt"' in stored[0]
    store.close()


async def test_sqlite_store_serialises_racing_calls_through_leases(tmp_path: Any) -> None:
    from statekit.gate import SQLiteStore

    store = SQLiteStore(tmp_path / "race.db")
    server, gate, calls = invoice_server(mode="handle", store=store)
    async with Client(server, mode=MODERN) as client:
        created = (await client.call_tool("create_invoice", {})).structured_content
        assert created is not None
        handle = created["invoice_id"]
        await client.call_tool("submit_invoice", {"invoice_id": handle})
        results = await asyncio.gather(
            *(client.call_tool("approve_invoice", {"invoice_id": handle}) for _ in range(10))
        )
    assert sum(not r.is_error for r in results) == 1
    assert calls["approve_invoice"] == 1
    assert (await gate.snapshot_of(handle=handle)).value == "approved"
    store.close()


async def test_a_raising_guard_leaves_the_workflow_where_it_was() -> None:
    def broken(args: Any, params: Any) -> bool:
        raise ValueError("guard exploded")

    machine = statekit.setup(guards={"broken": broken}).create_machine(
        {
            "id": "g",
            "initial": "a",
            "states": {"a": {"on": {"GO": {"target": "b", "guard": "broken"}}}, "b": {}},
        }
    )
    server: Server[Any] = Server("guarded")
    gate = Gate(machine)

    @gate.tool(description="Go.", bind="a", on_success="GO")
    async def go(arguments: dict[str, Any], call: GateCall) -> str:
        return "went"

    gate.install(server)
    async with Client(server, mode=LEGACY) as client:
        result = await client.call_tool("go", {})
        assert result.is_error
        assert "could not take event GO" in text_of(result)
        assert await names(client) == ["go"]


async def test_assign_actions_update_the_stored_context() -> None:
    machine = statekit.setup(
        actions={
            "count": statekit.assign(lambda args, params: {"lines": args.context["lines"] + 1})
        }
    ).create_machine(
        {
            "id": "counter",
            "initial": "open",
            "context": {"lines": 0},
            "states": {
                "open": {"on": {"ADD": {"actions": ["count"]}, "CLOSE": "closed"}},
                "closed": {},
            },
        }
    )
    server: Server[Any] = Server("counter")
    gate = Gate(machine)

    @gate.tool(description="Add a line.", bind="open", on_success="ADD")
    async def add(arguments: dict[str, Any], call: GateCall) -> str:
        return f"had {call.context['lines']}"

    gate.install(server)
    async with Client(server, mode=LEGACY) as client:
        first = await client.call_tool("add", {})
        second = await client.call_tool("add", {})
    assert [text_of(r).splitlines()[0] for r in (first, second)] == ["had 0", "had 1"]


@pytest.mark.parametrize("store_kind", ["memory", "sqlite"])
async def test_a_retried_transition_keeps_its_transition_id(store_kind: str, tmp_path: Any) -> None:
    from statekit.gate import SQLiteStore

    store: StateStore = MemoryStore() if store_kind == "memory" else SQLiteStore(tmp_path / "t.db")
    server: Server[Any] = Server("idempotent")
    gate = Gate(INVOICE, store=store)
    seen: list[str | None] = []

    @gate.tool(description="Submit.", bind="draft", on_success="SUBMIT")
    async def submit(arguments: dict[str, Any], call: GateCall) -> str:
        seen.append(call.transition_id)
        if arguments.get("fail"):
            raise RuntimeError("payment provider timed out")
        return "submitted"

    @gate.tool(description="Reject.", bind="review", on_success="REJECT")
    async def reject(arguments: dict[str, Any], call: GateCall) -> str:
        seen.append(call.transition_id)
        return "rejected"

    gate.install(server)
    async with Client(server, mode=LEGACY) as client:
        assert (await client.call_tool("submit", {"fail": True})).is_error
        assert not (await client.call_tool("submit", {})).is_error
        await client.call_tool("reject", {})
        await client.call_tool("submit", {})
    key = seen[0].split("#")[0] if seen[0] else ""
    assert seen == [f"{key}#1", f"{key}#1", f"{key}#2", f"{key}#3"]
