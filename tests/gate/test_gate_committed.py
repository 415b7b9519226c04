"""A transition reserves on this process's last commit without reading, and never decides from it.

Two gates over one SQLite file stand for two processes (each with its own memory of what it
committed). See statekit/gate/committed.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gate_workflows import INVOICE
from mcp import Client
from mcp.server.lowlevel.server import Server

from statekit.gate import Gate, GateCall, SQLiteStore


class CountingStore(SQLiteStore):
    """A SQLite store that counts its reads."""

    loads = 0

    async def load(self, handle: str) -> tuple[str, int] | None:
        self.loads += 1
        return await super().load(handle)


def process(store: SQLiteStore, runs: dict[str, int]) -> Server[Any]:
    server: Server[Any] = Server("invoices")
    gate = Gate(INVOICE, store=store, mode="handle", state_handle_key="invoice_id")

    @gate.tool(description="Start.", creates_handle=True)
    async def create(arguments: dict[str, Any], call: GateCall) -> dict[str, Any]:
        return {"invoice_id": call.handle}

    for name, state, event in (("submit", "draft", "SUBMIT"), ("approve", "review", "APPROVE"),
                               ("reject", "review", "REJECT"), ("discharge", "approved", "DISCHARGE")):

        async def step(arguments: dict[str, Any], call: GateCall, name: str = name) -> str:
            runs[name] = runs.get(name, 0) + 1
            return name

        gate.tool(name, description=f"{name}.", bind=state, on_success=event)(step)
    gate.install(server)
    return server


async def test_the_next_transition_reserves_on_the_last_commit_without_a_read(tmp_path: Path) -> None:
    store = CountingStore(tmp_path / "one.db")
    runs: dict[str, int] = {}
    async with Client(process(store, runs), mode="2026-07-28") as client:
        created = (await client.call_tool("create", {})).structured_content
        assert created is not None
        handle = {"invoice_id": created["invoice_id"]}
        assert not (await client.call_tool("submit", handle)).is_error
        before = store.loads
        assert not (await client.call_tool("approve", handle)).is_error
        assert not (await client.call_tool("discharge", handle)).is_error
        assert store.loads == before  # both reserved on the version this process committed
    store.close()


async def test_a_commit_by_another_process_is_found_before_anything_runs(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    first_store, second_store = SQLiteStore(path), SQLiteStore(path)
    runs: dict[str, int] = {}
    async with (
        Client(process(first_store, runs), mode="2026-07-28") as first,
        Client(process(second_store, runs), mode="2026-07-28") as second,
    ):
        created = (await first.call_tool("create", {})).structured_content
        assert created is not None
        handle = {"invoice_id": created["invoice_id"]}
        assert not (await first.call_tool("submit", handle)).is_error  # first remembers `review`
        assert not (await second.call_tool("reject", handle)).is_error  # back to draft, elsewhere
        # `approve` is allowed in what the first process remembers, not in the stored state:
        # its reservation fails, it reads the store, and refuses before the handler runs.
        refused = await first.call_tool("approve", handle)
        assert refused.is_error and refused.structured_content is not None
        assert refused.structured_content["code"] == "FORBIDDEN"
        assert refused.structured_content["state"] == "draft"
        assert "approve" not in runs
        # And a call allowed in the stored state goes through from the fresh read.
        assert not (await first.call_tool("submit", handle)).is_error
        assert not (await second.call_tool("approve", handle)).is_error
        assert not (await first.call_tool("discharge", handle)).is_error
    assert runs == {"submit": 2, "reject": 1, "approve": 1, "discharge": 1}
    first_store.close()
    second_store.close()
