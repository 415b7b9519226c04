"""Operations: transition hooks, the audit trail, and the admin API (list, inspect, reset, force, delete)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from gate_workflows import INVOICE, SHIPMENT
from mcp import Client
from mcp.server.lowlevel.server import Server

from statekit.gate import Gate, GateCall, MemoryStore, SQLiteStore, StateStore, TransitionInfo
from statekit.gate.admin import GateAdmin, run_admin


def invoice_server(store: StateStore, **options: Any) -> tuple[Server[Any], Gate]:
    server: Server[Any] = Server("ops")
    gate = Gate(INVOICE, store=store, mode="handle", state_handle_key="invoice_id", **options)

    @gate.tool(description="Start.", creates_handle=True)
    async def create(arguments: dict[str, Any], call: GateCall) -> dict[str, Any]:
        return {"invoice_id": call.handle}

    for name, state, event in [
        ("submit", "draft", "SUBMIT"),
        ("approve", "review", "APPROVE"),
        ("reject", "review", "REJECT"),
    ]:

        async def handler(arguments: dict[str, Any], call: GateCall) -> str:
            return f"{call.tool} ok"

        gate.tool(name, description=f"{name}.", bind=state, on_success=event)(handler)
    gate.install(server)
    return server, gate


async def test_hooks_see_every_transition_and_their_failures_never_fail_the_call() -> None:
    seen: list[TransitionInfo] = []

    def broken(info: TransitionInfo) -> None:
        raise RuntimeError("the audit sink is down")

    async def recorder(info: TransitionInfo) -> None:
        seen.append(info)

    server, _gate = invoice_server(MemoryStore(), on_transition=[broken, recorder])
    async with Client(server, mode="2026-07-28") as client:
        created = (await client.call_tool("create", {})).structured_content
        assert created is not None
        handle = created["invoice_id"]
        assert not (await client.call_tool("submit", {"invoice_id": handle})).is_error
        assert not (await client.call_tool("reject", {"invoice_id": handle})).is_error
    assert [(i.source, i.target, i.event, i.tool) for i in seen] == [
        ("draft", "review", "SUBMIT", "submit"),
        ("review", "draft", "REJECT", "reject"),
    ]
    assert [i.transition_id for i in seen] == [
        f"invoice/handle:{handle}#1",
        f"invoice/handle:{handle}#2",
    ]
    assert all(i.key == f"invoice/handle:{handle}" for i in seen)


async def test_the_audit_trail_keeps_the_last_n_transitions() -> None:
    server, gate = invoice_server(MemoryStore(), history_size=3)
    async with Client(server, mode="2026-07-28") as client:
        created = (await client.call_tool("create", {})).structured_content
        assert created is not None
        handle = created["invoice_id"]
        for tool in ["submit", "reject", "submit", "reject", "submit"]:
            assert not (await client.call_tool(tool, {"invoice_id": handle})).is_error
    inspected = await gate.admin.inspect(f"handle:{handle}")
    assert inspected is not None
    assert inspected["step"] == 5
    assert [(e["tool"], e["transitionId"].rsplit("#")[1]) for e in inspected["history"]] == [
        ("submit", "3"),
        ("reject", "4"),
        ("submit", "5"),
    ]


async def test_admin_lists_inspects_resets_forces_and_deletes(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "admin.db")
    server, gate = invoice_server(store)
    handles = []
    async with Client(server, mode="2026-07-28") as client:
        for _ in range(3):
            created = (await client.call_tool("create", {})).structured_content
            assert created is not None
            handles.append(created["invoice_id"])
        await client.call_tool("submit", {"invoice_id": handles[0]})
        admin = gate.admin
        assert await admin.keys() == sorted(f"handle:{h}" for h in handles)
        # Force validates: unknown, incomplete and root states are refused.
        for bad in ["paid", {"review": "x"}]:
            with pytest.raises(ValueError):
                await admin.force(f"handle:{handles[1]}", bad)
        forced = await admin.force(f"handle:{handles[1]}", "approved")
        assert (
            forced["state"] == "approved"
            and forced["history"][-1]["event"] == "statekit.admin.force"
        )
        assert (await client.call_tool("submit", {"invoice_id": handles[1]})).is_error
        reset = await admin.reset(f"handle:{handles[0]}")
        assert reset["state"] == "draft"
        # Transition ids keep counting across the repair: an idempotency key is never reused.
        assert reset["step"] == 2
        assert not (await client.call_tool("submit", {"invoice_id": handles[0]})).is_error
        assert (await admin.inspect(f"handle:{handles[0]}"))["step"] == 3  # type: ignore[index]
        assert await admin.delete(f"handle:{handles[2]}")
        assert await admin.inspect(f"handle:{handles[2]}") is None
        refused = await client.call_tool("submit", {"invoice_id": handles[2]})
        assert refused.structured_content is not None
        assert refused.structured_content["code"] == "NOT_FOUND"
    store.close()


async def test_force_rejects_incomplete_parallel_states() -> None:
    admin = GateAdmin.for_store(MemoryStore(), SHIPMENT)
    with pytest.raises(ValueError):
        await admin.force("server:shipment", {"checks": {"customs": "pending"}})
    forced = await admin.force(
        "server:shipment", {"checks": {"customs": "cleared", "payment": "pending"}}
    )
    assert forced["state"] == {"checks": {"customs": "cleared", "payment": "pending"}}


async def test_run_admin_over_store_urls(tmp_path: Path, redis_url: str) -> None:
    for url in [f"sqlite:{tmp_path / 'cli.db'}", redis_url]:
        assert await run_admin(url, INVOICE, "force", "session:abc", "review") is not None
        assert "session:abc" in await run_admin(url, INVOICE, "list")
        inspected = await run_admin(url, INVOICE, "inspect", "session:abc")
        assert inspected["state"] == "review"
        assert (await run_admin(url, INVOICE, "delete", "session:abc")) == {"deleted": True}
    with pytest.raises(ValueError, match="unknown store URL"):
        await run_admin("memory:", INVOICE, "list")
