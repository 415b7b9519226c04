"""`after` transitions fire on the wall clock, once, in XState's order, with every store."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.server.lowlevel.server import Server

from statekit.engine import Actor, VirtualClock, create_machine
from statekit.gate import (
    Gate,
    GateCall,
    MemoryStore,
    RedisStore,
    SQLiteStore,
    StateStore,
    TransitionInfo,
)
from statekit.gate.record import Timer
from statekit.gate.timers import fire_due

HOUR = 3600.0

#: A review that expires after 48 hours unless someone approves it first.
REVIEW: dict[str, Any] = {
    "id": "review",
    "initial": "draft",
    "states": {
        "draft": {"on": {"SUBMIT": "pending"}},
        "pending": {
            "on": {"APPROVE": "approved"},
            "after": {str(48 * 3600 * 1000): "expired"},
        },
        "approved": {"type": "final"},
        "expired": {"on": {"RESUBMIT": "pending"}},
    },
}


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def review_server(
    store: StateStore,
    clock: Clock,
    hooks: list[TransitionInfo] | None = None,
    *,
    modern_list: Any = "static",
) -> tuple[Server[Any], Gate]:
    server: Server[Any] = Server("review")
    gate = Gate(
        REVIEW,
        store=store,
        clock=clock,
        on_transition=(hooks if hooks is not None else []).append,
        modern_list=modern_list,
    )

    @gate.tool(description="Submit for review.", bind="draft", on_success="SUBMIT")
    async def submit(arguments: dict[str, Any], call: GateCall) -> str:
        return "submitted"

    @gate.tool(description="Approve.", bind="pending", on_success="APPROVE")
    async def approve(arguments: dict[str, Any], call: GateCall) -> str:
        return "approved"

    @gate.tool(description="Resubmit an expired review.", bind="expired", on_success="RESUBMIT")
    async def resubmit(arguments: dict[str, Any], call: GateCall) -> str:
        return "resubmitted"

    gate.install(server)
    return server, gate


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    if request.param == "memory":
        yield MemoryStore()
    elif request.param == "sqlite":
        sqlite = SQLiteStore(tmp_path / "timers.db")
        yield sqlite
        sqlite.close()
    else:
        redis_store = RedisStore.from_url(
            request.getfixturevalue("redis_url"), key_prefix=f"timers:{id(request)}:"
        )
        yield redis_store
        await redis_store.aclose()


async def test_a_review_expires_when_its_workflow_is_next_read(store: StateStore) -> None:
    clock = Clock()
    hooks: list[TransitionInfo] = []
    server, gate = review_server(store, clock, hooks)
    async with Client(server, mode="legacy") as client:
        assert not (await client.call_tool("submit", {})).is_error
        clock.now += 47 * HOUR
        assert [t.name for t in (await client.list_tools()).tools] == ["approve"]
        clock.now += 2 * HOUR
        # Due: the next read fires it, before anything else looks at the state.
        refused = await client.call_tool("approve", {})
        assert refused.structured_content is not None
        assert refused.structured_content["code"] == "FORBIDDEN"
        assert refused.structured_content["state"] == "expired"
        assert [t.name for t in (await client.list_tools()).tools] == ["resubmit"]
    assert [(h.source, h.target, h.tool) for h in hooks] == [
        ("draft", "pending", "submit"),
        ("pending", "expired", None),
    ]
    inspected = await gate.admin.inspect("server:review")
    assert inspected is not None
    assert [entry["to"] for entry in inspected["history"]] == ["pending", "expired"]
    assert inspected["timers"] == []


async def test_approving_in_time_cancels_the_timer(store: StateStore) -> None:
    clock = Clock()
    server, gate = review_server(store, clock)
    async with Client(server, mode="legacy") as client:
        await client.call_tool("submit", {})
        clock.now += 10 * HOUR
        assert not (await client.call_tool("approve", {})).is_error
        clock.now += 100 * HOUR
        listed = await client.list_tools()
        assert listed.tools == []
    inspected = await gate.admin.inspect("server:review")
    assert inspected is not None and inspected["state"] == "approved"
    assert inspected["timers"] == []


async def test_the_sweeper_fires_unattended_and_tells_the_client(store: StateStore) -> None:
    clock = Clock()
    server, gate = review_server(store, clock)
    changed = asyncio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    async with Client(server, mode="legacy", message_handler=on_message) as client:
        await client.call_tool("submit", {})
        changed.clear()
        clock.now += 49 * HOUR
        assert await gate.fire_due_timers() == 1
        assert await gate.fire_due_timers() == 0  # fired once, not again
        async with asyncio.timeout(10):
            await changed.wait()
        assert [t.name for t in (await client.list_tools()).tools] == ["resubmit"]
        # The background task form.
        await client.call_tool("resubmit", {})
        clock.now += 49 * HOUR
        task = asyncio.create_task(gate.run_timers(interval=0.01))
        try:
            async with asyncio.timeout(10):
                while (await gate.snapshot_of(key=_server_key())).value != "expired":
                    await asyncio.sleep(0.01)
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                async with asyncio.timeout(10):  # a sweeper that ignores its cancel fails here
                    await task


def _server_key() -> Any:
    from statekit.gate import WorkflowKey

    return WorkflowKey("server", "review")


async def test_each_timer_fires_once_across_gates_sharing_a_store(redis_url: str) -> None:
    """Two processes' gates read the same due workflow at once: the compare-and-set picks one."""
    clock = Clock()
    fired: list[TransitionInfo] = []
    gates = []
    for _ in range(4):
        _server, gate = review_server(
            RedisStore.from_url(redis_url, key_prefix="once:"), clock, fired
        )
        gates.append(gate)
    await gates[0].admin.delete("server:review")
    await gates[0].admin.force("server:review", "draft")
    # Submit through one gate (it schedules the timer), then everyone reads once it is due.
    server, _ = review_server(RedisStore.from_url(redis_url, key_prefix="once:"), clock, fired)
    async with Client(server, mode="legacy") as client:
        await client.call_tool("submit", {})
    fired.clear()
    clock.now += 49 * HOUR
    results = await asyncio.gather(
        *(gate.snapshot_of(key=_server_key()) for gate in gates for _ in range(5)),
        *(gate.fire_due_timers() for gate in gates),
    )
    assert {snapshot.value for snapshot in results[:20]} == {"expired"}
    assert [(info.source, info.target) for info in fired] == [("pending", "expired")]


#: Several timers in one state, one of them re-armed by a self-transition, and a chain.
ORDERED: dict[str, Any] = {
    "id": "ordered",
    "initial": "a",
    "states": {
        "a": {
            "after": {
                "100": {"target": "b"},
                "50": {"target": "c"},
            }
        },
        "b": {},
        "c": {"after": {"50": "d", "60": "b"}},
        "d": {"after": {"0": "e"}},
        "e": {"after": {"10": "a"}},
    },
}


def test_firing_order_matches_the_engines_own_scheduler() -> None:
    """The gate's wall-clock timers and the engine's Actor (XState's scheduler) agree step by step."""
    machine = create_machine(ORDERED)
    clock = VirtualClock()
    actor = Actor(machine, clock=clock).start()
    seen_actor: list[Any] = []
    actor.subscribe(lambda snapshot: seen_actor.append(snapshot.value))
    from statekit.engine import initial_transition
    from statekit.gate.timers import apply_timer_actions

    snapshot, actions = initial_transition(machine)
    timers: tuple[Timer, ...] = apply_timer_actions((), actions, 0.0)
    seen_gate: list[Any] = []
    for step_ms in (30, 30, 45, 1, 100, 7, 300):
        clock.advance(step_ms)
        snapshot, timers, fired = fire_due(machine, snapshot, timers, clock.now / 1000.0)
        seen_gate.extend(item.target for item in fired)
        assert snapshot.value == actor.get_snapshot().value
    assert seen_gate == seen_actor
    assert len(seen_gate) > 5


async def test_initial_state_timers_start_at_the_first_read() -> None:
    workflow = {
        "id": "hold",
        "initial": "held",
        "states": {"held": {"after": {"1000": "released"}}, "released": {}},
    }
    clock = Clock()
    server: Server[Any] = Server("hold")
    gate = Gate(workflow, clock=clock)

    @gate.tool(description="Only once released.", bind="released")
    async def use(arguments: dict[str, Any], call: GateCall) -> str:
        return "used"

    gate.install(server)
    async with Client(server, mode="legacy") as client:
        assert (await client.list_tools()).tools == []
        clock.now += 0.5
        assert (await client.call_tool("use", {})).is_error
        clock.now += 0.6
        assert not (await client.call_tool("use", {})).is_error


async def test_a_timer_falling_due_mid_call_does_not_void_the_call() -> None:
    """MemoryStore writes no lease (the lock is the reservation): a concurrent read must not fire."""
    clock = Clock()
    server: Server[Any] = Server("mid-call")
    gate = Gate(REVIEW, store=MemoryStore(), clock=clock)
    release = asyncio.Event()

    @gate.tool(description="Submit.", bind="draft", on_success="SUBMIT")
    async def submit(arguments: dict[str, Any], call: GateCall) -> str:
        return "submitted"

    @gate.tool(description="Approve (slowly).", bind="pending", on_success="APPROVE")
    async def approve(arguments: dict[str, Any], call: GateCall) -> str:
        clock.now += 49 * HOUR  # the review falls due while the approval is running
        await release.wait()
        return "approved"

    gate.install(server)
    async with Client(server, mode="legacy") as client:
        await client.call_tool("submit", {})
        approving = asyncio.create_task(client.call_tool("approve", {}))
        while not gate._locks.is_held("review/server:review"):
            await asyncio.sleep(0.001)
        await client.list_tools()  # a read while the approval holds the workflow
        release.set()
        assert not (await approving).is_error
    assert (await gate.snapshot_of(key=_server_key())).value == "approved"


async def test_a_timer_fired_by_the_sweeper_reaches_modern_listen_streams() -> None:
    clock = Clock()
    server, gate = review_server(MemoryStore(), clock, modern_list="by_state")
    async with (
        Client(server, mode="2026-07-28") as client,
        client.listen(tools_list_changed=True) as events,
    ):
        iterator = aiter(events)
        await client.call_tool("submit", {})
        async with asyncio.timeout(10):
            assert type(await anext(iterator)).__name__ == "ToolsListChanged"
        clock.now += 49 * HOUR
        assert await gate.fire_due_timers() == 1
        async with asyncio.timeout(10):
            assert type(await anext(iterator)).__name__ == "ToolsListChanged"
