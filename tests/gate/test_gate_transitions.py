"""What counts as a transition: an event the state ignores is none; hooks come and go; admin actions are.

On e361e51 an ignored event fired the hooks (`has_items -> has_items`), wrote an audit entry,
bumped `step` and used a transition id, exactly like a real self-transition.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from gate_workflows import INVOICE
from mcp import Client
from mcp.server.lowlevel.server import Server

import statekit
from statekit.gate import Gate, GateCall, MemoryStore, SQLiteStore, StateStore, TransitionInfo

CART: dict[str, Any] = {
    "id": "cart",
    "initial": "empty",
    "context": {"items": 0},
    "states": {
        "empty": {"on": {"ADD": {"target": "has_items", "actions": "count"}}},
        "has_items": {
            "on": {
                # A full cart ignores ADD: the guard says no.
                "ADD": {"target": "has_items", "guard": "room", "actions": "count"},
                "CHECKOUT": "paid",
            }
        },
        "paid": {"type": "final"},
    },
}
LIMIT = 2


def cart_server(store: StateStore) -> tuple[Server[Any], Gate, list[TransitionInfo], list[Any]]:
    machine = statekit.setup(
        guards={"room": lambda args, params: args.context["items"] < LIMIT},
        actions={
            "count": statekit.assign({"items": lambda args, params: args.context["items"] + 1})
        },
    ).create_machine(CART)
    seen: list[TransitionInfo] = []
    ids: list[Any] = []
    gate = Gate(machine, store=store, on_transition=seen.append)
    server: Server[Any] = Server("cart")

    @gate.tool(description="Add an item.", bind=["empty", "has_items"], on_success="ADD")
    async def add(arguments: dict[str, Any], call: GateCall) -> str:
        ids.append(call.transition_id)
        return "added"

    # CHECKOUT is declared in has_items only; the tool is listed in empty too.
    @gate.tool(description="Check out.", bind=["empty", "has_items"], on_success="CHECKOUT")
    async def checkout(arguments: dict[str, Any], call: GateCall) -> str:
        ids.append(call.transition_id)
        return "checked out"

    gate.install(server)
    return server, gate, seen, ids


STORES = ["memory", "sqlite"]


def make_store(kind: str, tmp_path: Path) -> StateStore:
    return MemoryStore() if kind == "memory" else SQLiteStore(tmp_path / "cart.db")


@pytest.mark.parametrize("store_kind", STORES)
async def test_an_event_the_state_ignores_is_not_a_transition(
    store_kind: str, tmp_path: Path
) -> None:
    server, gate, seen, ids = cart_server(make_store(store_kind, tmp_path))
    async with Client(server, mode="legacy") as client:
        # No state declares CHECKOUT in `empty`: the handler runs, with no transition id.
        assert not (await client.call_tool("checkout", {})).is_error
        for _ in range(LIMIT):
            assert not (await client.call_tool("add", {})).is_error
        # The guard refuses a third ADD: the handler ran, and the workflow did not move.
        assert not (await client.call_tool("add", {})).is_error
        keys = await gate.admin.keys()
        assert len(keys) == 1  # an in-process client is the server's one workflow
        record = await gate.admin.inspect(keys[0])
        assert record is not None
        assert record["state"] == "has_items" and record["context"] == {"items": LIMIT}
        assert record["step"] == LIMIT
        assert [entry["event"] for entry in record["history"]] == ["ADD"] * LIMIT
        assert [(info.source, info.target, info.event) for info in seen] == [
            ("empty", "has_items", "ADD"),
            ("has_items", "has_items", "ADD"),
        ]
        # The next real transition takes the next id: the ignored calls used none.
        assert not (await client.call_tool("checkout", {})).is_error
    store_key = seen[0].key
    assert [info.transition_id for info in seen] == [
        f"{store_key}#1",
        f"{store_key}#2",
        f"{store_key}#3",
    ]
    assert ids == [None, f"{store_key}#1", f"{store_key}#2", f"{store_key}#3", f"{store_key}#3"]


async def test_hooks_can_be_removed() -> None:
    server, gate, seen, _ = cart_server(MemoryStore())
    later: list[TransitionInfo] = []
    remove = gate.add_transition_hook(later.append)
    async with Client(server, mode="legacy") as client:
        await client.call_tool("add", {})
        assert remove() is True
        assert remove() is False  # already gone
        await client.call_tool("add", {})
        assert gate.remove_transition_hook(seen.append) is True
        await client.call_tool("checkout", {})
    assert [info.event for info in later] == ["ADD"]
    assert [info.event for info in seen] == ["ADD", "ADD"]


async def test_admin_force_and_reset_fire_hooks_without_a_tool(tmp_path: Path) -> None:
    seen: list[TransitionInfo] = []
    gate = Gate(INVOICE, store=SQLiteStore(tmp_path / "admin.db"), on_transition=seen.append)
    admin = gate.admin
    forced = await admin.force("session:abc", "approved")
    reset = await admin.reset("session:abc")
    assert [(i.key, i.source, i.target, i.event, i.tool) for i in seen] == [
        ("invoice/session:abc", None, "approved", "statekit.admin.force", None),
        ("invoice/session:abc", "approved", "draft", "statekit.admin.reset", None),
    ]
    assert [i.transition_id for i in seen] == [
        f"invoice/session:abc#{forced['step']}",
        f"invoice/session:abc#{reset['step']}",
    ]
