"""MCP Fusion's FSM-gate tests that statekit had no equivalent of, ported to the gate.

Each test names the Fusion file and case it ports (vinkius-labs/mcp-fusion,
packages/core/tests/fsm/). The map of every Fusion FSM test file to a statekit test,
or to the reason it does not apply, is tests/gate/FUSION.md.
"""

from __future__ import annotations

import asyncio
from typing import Any

import mcp_types as types
from mcp import Client
from mcp.server.lowlevel.server import Server

from statekit.gate import Gate, GateCall, MemoryStore, TransitionInfo, WorkflowKey


def _server(workflow: dict[str, Any], bindings: list[tuple[str, str | None, str | None]], **options: Any) -> tuple[Server[Any], Gate]:
    server: Server[Any] = Server("fusion-port")
    gate = Gate(workflow, **options)
    for name, state, event in bindings:

        async def handler(arguments: dict[str, Any], call: GateCall, name: str = name) -> str:
            return f"{name} ok"

        gate.tool(name, description=f"{name}.", bind=state, on_success=event)(handler)
    gate.install(server)
    return server, gate


async def _names(client: Client) -> list[str]:
    return [tool.name for tool in (await client.list_tools()).tools]


def _linear(count: int) -> dict[str, Any]:
    states: dict[str, Any] = {f"s{i}": {"on": {"NEXT": f"s{i + 1}"}} for i in range(count - 1)}
    states[f"s{count - 1}"] = {"type": "final"}
    return {"id": "linear", "initial": "s0", "states": states}


async def test_a_50_state_linear_workflow_with_100_bound_tools() -> None:
    """StateMachineGate.edge.test.ts, "Large FSM": a 50-state linear FSM; 100 tools bound and filtered."""
    bindings: list[tuple[str, str | None, str | None]] = [
        (f"advance_{i}", f"s{i}", "NEXT") for i in range(49)
    ]
    bindings += [(f"read_{i}", f"s{i % 49}", None) for i in range(51)]
    server, gate = _server(_linear(50), bindings)
    assert len(gate.bindings()) == 100
    async with Client(server, mode="legacy") as client:
        for i in range(49):
            listed = await _names(client)
            assert listed == [f"advance_{i}", *[f"read_{j}" for j in range(51) if j % 49 == i]]
            assert not (await client.call_tool(f"advance_{i}", {})).is_error
        assert await _names(client) == []
    snapshot = await gate.snapshot_of(key=WorkflowKey("server", "linear"))
    assert snapshot.value == "s49" and snapshot.status == "done"


async def test_a_diamond_reaches_the_same_end_by_either_path() -> None:
    """StateMachineGate.edge.test.ts, "Diamond FSM": both paths converge on one identical final snapshot."""
    diamond = {
        "id": "diamond",
        "initial": "start",
        "states": {
            "start": {"on": {"LEFT": "left", "RIGHT": "right"}},
            "left": {"on": {"JOIN": "end"}},
            "right": {"on": {"JOIN": "end"}},
            "end": {"type": "final"},
        },
    }
    bindings: list[tuple[str, str | None, str | None]] = [
        ("go_left", "start", "LEFT"),
        ("go_right", "start", "RIGHT"),
        ("join", "left", "JOIN"),
        ("join_right", "right", "JOIN"),
    ]
    finals = []
    for first, second in (("go_left", "join"), ("go_right", "join_right")):
        server, gate = _server(diamond, bindings)
        async with Client(server, mode="2026-07-28") as client:
            assert not (await client.call_tool(first, {})).is_error
            refused = await client.call_tool("go_left", {})
            assert refused.is_error  # the other branch is closed once one is taken
            assert not (await client.call_tool(second, {})).is_error
        finals.append((await gate.snapshot_of(key=WorkflowKey("server", "diamond"))).to_json())
    assert finals[0] == finals[1]
    assert finals[0]["value"] == "end" and finals[0]["status"] == "done"


async def test_a_thousand_cycles_keep_the_record_bounded() -> None:
    """StateMachineGate.edge.test.ts, "Cyclic FSM": 1000 cycles without memory growth or crash."""
    cycle = {
        "id": "cycle",
        "initial": "idle",
        "states": {"idle": {"on": {"START": "busy"}}, "busy": {"on": {"STOP": "idle"}}},
    }
    store = MemoryStore()
    server, gate = _server(cycle, [("start", "idle", "START"), ("stop", "busy", "STOP")], store=store, history_size=5)
    key = "cycle/server:cycle"
    sizes = []
    async with Client(server, mode="legacy") as client:
        for round_number in range(1000):
            assert not (await client.call_tool("start", {})).is_error
            assert not (await client.call_tool("stop", {})).is_error
            if round_number in (10, 999):
                loaded = await store.load(key)
                assert loaded is not None
                sizes.append(len(loaded[0]))
    inspected = await gate.admin.inspect("server:cycle")
    assert inspected is not None and inspected["step"] == 2000 and inspected["state"] == "idle"
    assert len(inspected["history"]) == 5
    # The record only grows with the digits of the step count and transition ids.
    assert sizes[1] - sizes[0] < 64, sizes


async def test_ten_concurrent_workflows_never_interfere() -> None:
    """StateMachineGate.concurrency-bug3.test.ts and StateMachineGateIsolation-bug77.test.ts: concurrent
    requests on separate workflows stay isolated (Fusion had to clone a shared mutable gate per request;
    statekit restores an immutable snapshot per request, so there is nothing to clone)."""
    seen: list[TransitionInfo] = []
    invoice = {
        "id": "invoice",
        "initial": "draft",
        "states": {
            "draft": {"on": {"SUBMIT": "review"}},
            "review": {"on": {"APPROVE": "approved", "REJECT": "draft"}},
            "approved": {"type": "final"},
        },
    }
    server: Server[Any] = Server("isolation")
    gate = Gate(invoice, mode="handle", state_handle_key="invoice_id", on_transition=seen.append)

    @gate.tool(description="Start.", creates_handle=True)
    async def create(arguments: dict[str, Any], call: GateCall) -> dict[str, Any]:
        return {"invoice_id": call.handle}

    for name, state, event in (("submit", "draft", "SUBMIT"), ("approve", "review", "APPROVE"), ("reject", "review", "REJECT")):

        async def step(arguments: dict[str, Any], call: GateCall, name: str = name) -> str:
            await asyncio.sleep(0)  # let the other workflows interleave
            return name

        gate.tool(name, description=f"{name}.", bind=state, on_success=event)(step)
    gate.install(server)

    async def walk(client: Client, index: int) -> str:
        created = (await client.call_tool("create", {})).structured_content
        assert created is not None
        handle = str(created["invoice_id"])
        path = ["submit", "approve"] if index % 2 else ["submit", "reject", "submit", "approve"]
        for tool in path:
            result = await client.call_tool(tool, {"invoice_id": handle})
            assert not result.is_error, (index, tool, result.content)
        return handle

    async with Client(server, mode="2026-07-28") as client:
        handles = await asyncio.gather(*(walk(client, index) for index in range(10)))
    assert len(set(handles)) == 10
    for index, handle in enumerate(handles):
        events = [info.event for info in seen if info.key == f"invoice/handle:{handle}"]
        assert events == (["SUBMIT", "APPROVE"] if index % 2 else ["SUBMIT", "REJECT", "SUBMIT", "APPROVE"])
        assert (await gate.snapshot_of(handle=handle)).value == "approved"


async def test_resuming_a_stored_workflow_fires_no_hooks_and_keeps_its_state() -> None:
    """StateMachineGate.edge.test.ts "restore should not fire transition callbacks" and
    StateMachineGate.restore-regression.test.ts "restore to payment state then PAY — full serverless
    roundtrip": a new gate over the same store (a new process) resumes the stored state, silently."""
    checkout = {
        "id": "checkout",
        "initial": "empty",
        "states": {
            "empty": {"on": {"ADD_ITEM": "has_items"}},
            "has_items": {"on": {"CHECKOUT": "payment", "CLEAR": "empty"}},
            "payment": {"on": {"PAY": "confirmed", "CANCEL": "has_items"}},
            "confirmed": {"type": "final"},
        },
    }
    bindings: list[tuple[str, str | None, str | None]] = [
        ("cart_add", "empty", "ADD_ITEM"),
        ("cart_checkout", "has_items", "CHECKOUT"),
        ("cart_pay", "payment", "PAY"),
    ]
    store = MemoryStore()
    first, _ = _server(checkout, bindings, store=store)
    async with Client(first, mode="legacy") as client:
        await client.call_tool("cart_add", {})
        await client.call_tool("cart_checkout", {})
    seen: list[TransitionInfo] = []
    second, _gate = _server(checkout, bindings, store=store, on_transition=seen.append)
    async with Client(second, mode="legacy") as client:
        assert await _names(client) == ["cart_pay"]
        assert seen == []  # reading the stored workflow is not a transition
        result = await client.call_tool("cart_pay", {})
        assert not result.is_error
        assert isinstance(result.content[-1], types.TextContent)
        assert result.content[-1].text.startswith("Workflow state: confirmed.")
    assert [(info.source, info.target, info.transition_id) for info in seen] == [
        ("payment", "confirmed", "checkout/server:checkout#3")
    ]
