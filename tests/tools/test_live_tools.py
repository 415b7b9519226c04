"""Live machine tools: the Python face, handles, TTL, compare-and-set, and two servers on one store.

The engine-level agreement with XState actors is tests/live/test_live_oracle.py; here the
tools around it: a handle is a capability that ends when stopped or expired, two agents on
one handle never interleave within a call, and a handle started through one `statekit
serve` process works through another that shares its SQLite store, in both protocol eras.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from statekit.analysis.simulate import ImplementedMachine, build_simulation_machine
from statekit.errors import ToolError
from statekit.gate.store import MemoryStore
from statekit.live import LiveMachines
from statekit.model import parse_machine
from statekit.tools import call
from statekit.tools.registry import ToolContext

CHECKOUT: dict[str, Any] = {
    "id": "checkout", "initial": "cart", "context": {"items": 0},
    "states": {
        "cart": {"on": {"ADD": {"actions": {"type": "xstate.assign", "assignment": {"items": 1}}},
                        "CHECKOUT": {"target": "payment", "guard": "hasItems"}}},
        "payment": {"after": {"900000": "cart"}, "on": {"PAY": "paid", "CANCEL": "cart"}},
        "paid": {"type": "final"},
    },
}
COUNTER: dict[str, Any] = {
    "id": "counter", "initial": "on", "context": {"log": []},
    "states": {"on": {"on": {"TICK": {"actions": {"type": "xstate.assign", "assignment": {"log": {
        "$js": "({ context, event }) => [...context.log, event.n]"}}}}}}},
}


def test_a_checkout_over_several_turns_with_a_timer() -> None:
    context = ToolContext()
    started = call("start_machine", {"machine": CHECKOUT, "guards": {"hasItems": True}}, context=context)
    handle = started["machineHandle"]
    assert started["snapshot"]["value"] == "cart" and handle.startswith("lm_")
    turn = call("send_events", {"machineHandle": handle, "events": ["ADD", {"type": "CHECKOUT"}]}, context=context)
    assert [step["value"] for step in turn["steps"]] == ["cart", "payment"]
    seen = call("get_machine_snapshot", {"machineHandle": handle}, context=context)
    assert seen["enabledEvents"] == ["PAY", "CANCEL"]
    assert seen["pendingTimers"][0]["event"]["type"] == "xstate.after.900000.checkout.payment"
    waited = call("send_events", {"machineHandle": handle, "events": [], "advanceMs": 900000}, context=context)
    assert [(step["event"]["type"], step["value"], step["atMs"]) for step in waited["steps"]] == [
        ("xstate.after.900000.checkout.payment", "cart", 900000)]
    assert call("stop_machine", {"machineHandle": handle}, context=context)["stopped"] is True
    for name, arguments in [("send_events", {"machineHandle": handle, "events": ["PAY"]}),
                            ("get_machine_snapshot", {"machineHandle": handle}),
                            ("stop_machine", {"machineHandle": handle})]:
        with pytest.raises(ToolError) as raised:
            call(name, arguments, context=context)
        assert raised.value.code == "not_found"


def test_unknown_and_forged_handles_are_not_found() -> None:
    for handle in ["lm_nothere", "not-a-handle", ""]:
        with pytest.raises(ToolError) as raised:
            call("get_machine_snapshot", {"machineHandle": handle}, context=ToolContext())
        assert raised.value.code == "not_found"


def _loader(machine: Any, guards: Any) -> Any:
    return build_simulation_machine(ImplementedMachine.of_config(parse_machine(machine)), guards)


def test_a_handle_expires_after_its_ttl_without_use() -> None:
    now = [1000.0]
    live = LiveMachines(MemoryStore(), _loader, clock=lambda: now[0])
    handle = live.start(CHECKOUT, ttl_seconds=60)["machineHandle"]
    now[0] += 59
    live.send(handle, ["ADD"])  # use renews the TTL
    now[0] += 59
    assert live.get(handle)["snapshot"]["context"] == {"items": 1}
    now[0] += 61
    with pytest.raises(ToolError) as raised:
        live.get(handle)
    assert raised.value.code == "not_found"


def test_concurrent_calls_on_one_handle_never_interleave() -> None:
    live = LiveMachines(MemoryStore(), _loader)
    handle = live.start(COUNTER)["machineHandle"]
    results: list[list[int]] = []
    lock = threading.Lock()

    def agent(agent_id: int) -> None:
        for call_index in range(5):
            events = [{"type": "TICK", "n": agent_id * 100 + call_index * 10 + i} for i in range(4)]
            steps = live.send(handle, events)["steps"]
            with lock:
                results.append([step["context"]["log"][-1] for step in steps])

    threads = [threading.Thread(target=agent, args=(agent_id,)) for agent_id in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    log = live.get(handle)["snapshot"]["context"]["log"]
    assert len(log) == 6 * 5 * 4
    # Each call's four events sit back to back in the final log, in order.
    for values in results:
        start = log.index(values[0])
        assert log[start:start + 4] == values


def test_annotations_tell_the_truth() -> None:
    from statekit.tools import tools

    specs = tools()
    for name in ("start_machine", "send_events"):
        assert not specs[name].annotations.read_only and not specs[name].annotations.idempotent
    assert specs["get_machine_snapshot"].annotations.read_only
    assert specs["stop_machine"].annotations.destructive
    assert specs["check_machine_properties"].annotations.read_only


# -- two server processes, one store ---------------------------------------------------------


@asynccontextmanager
async def server(store: str, mode: str) -> AsyncIterator[Client]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "statekit.server", "--store", store],
                                   env=dict(os.environ))
    async with Client(params, mode=mode) as client:
        yield client


def structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return dict(result.structured_content)


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_handle_started_on_one_server_works_on_another_sharing_sqlite(tmp_path: Path, mode: str) -> None:
    store = f"sqlite://{tmp_path / 'state.db'}"
    async with server(store, mode) as first, server(store, mode) as second:
        listed = {tool.name: tool for tool in (await first.list_tools()).tools}
        start_hints = listed["start_machine"].annotations
        assert start_hints is not None and start_hints.read_only_hint is False and start_hints.idempotent_hint is False
        started = structured(await first.call_tool("start_machine", {"machine": CHECKOUT}))
        handle = started["machineHandle"]
        moved = structured(await second.call_tool("send_events", {"machineHandle": handle,
                                                                  "events": ["ADD", "CHECKOUT"]}))
        assert moved["snapshot"]["value"] == "payment"
        seen = structured(await first.call_tool("get_machine_snapshot", {"machineHandle": handle}))
        assert seen["snapshot"]["value"] == "payment" and seen["snapshot"]["context"] == {"items": 1}
        structured(await second.call_tool("stop_machine", {"machineHandle": handle}))
        gone = await first.call_tool("get_machine_snapshot", {"machineHandle": handle})
        assert gone.is_error and "not_found" in json.dumps([c.model_dump() for c in gone.content])


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_handle_started_on_one_server_works_on_another_sharing_redis(redis_url: str, mode: str) -> None:
    async with server(redis_url, mode) as first, server(redis_url, mode) as second:
        handle = structured(await first.call_tool("start_machine", {"machine": CHECKOUT,
                                                                    "guards": {"hasItems": True}}))["machineHandle"]
        structured(await second.call_tool("send_events", {"machineHandle": handle, "events": ["ADD", "CHECKOUT"]}))
        expired = structured(await first.call_tool("send_events", {"machineHandle": handle, "events": [],
                                                                   "advanceMs": 900000}))
        assert [step["value"] for step in expired["steps"]] == ["cart"]
        seen = structured(await second.call_tool("get_machine_snapshot", {"machineHandle": handle}))
        assert seen["snapshot"]["value"] == "cart" and seen["clockMs"] == 900000
        structured(await first.call_tool("stop_machine", {"machineHandle": handle}))
        assert (await second.call_tool("send_events", {"machineHandle": handle, "events": ["ADD"]})).is_error


def test_a_live_machine_names_the_children_it_does_not_run() -> None:
    """XState's createActor would run this callback, whose sendBack moves the parent to `b` at
    once; a live machine never runs child logic, so it stays in `a` and says which child it did
    not run (`actorsNotRun`), by name and for inline logic alike."""
    source = ("import { createMachine, fromCallback } from 'xstate';\n"
              "export const m = createMachine({ initial: 'a', states: {\n"
              "  a: { invoke: { src: fromCallback(({ sendBack }) => { sendBack({ type: 'DONE' }); }) },\n"
              "       on: { DONE: 'b' } },\n"
              "  b: { invoke: { src: 'poller', id: 'p' } } } });\n")
    started = call("start_machine", {"machine": source})
    assert started["snapshot"]["value"] == "a"
    assert started["normalization"]["actorsNotRun"] == ["poller", "xstate.invoke.0.(machine).a"]
    plain = call("start_machine", {"machine": CHECKOUT})
    assert "actorsNotRun" not in plain["normalization"]


# -- the compute seam ---------------------------------------------------------------------------

_inside_compute = threading.local()


def _checked_loader(machine: Any, guards: Any) -> Any:
    """A module-level loader (it pickles by reference) that refuses to build outside compute."""
    from statekit.tools.live_tools import runnable_machine

    assert getattr(_inside_compute, "active", False), "the machine was built outside compute"
    return runnable_machine(machine, guards)


def test_every_engine_step_goes_through_compute_with_picklable_values() -> None:
    """The server may run the engine work in a worker process: every call's engine work is one
    `compute(function, *args)` of a module-level function of statekit.live.session, with arguments
    and result that survive pickling, and the loader (the engine's entry) never runs outside it."""
    import pickle

    from statekit.live import session

    ran: list[str] = []

    def worker(function: Any, *args: Any) -> Any:
        function, args = pickle.loads(pickle.dumps((function, args)))
        assert getattr(session, function.__name__) is function
        ran.append(function.__name__)
        _inside_compute.active = True
        try:
            return pickle.loads(pickle.dumps(function(*args)))
        finally:
            _inside_compute.active = False

    live = LiveMachines(MemoryStore(), _checked_loader, compute=worker)
    handle = live.start(CHECKOUT, guards={"hasItems": True})["machineHandle"]
    live.send(handle, ["ADD", "CHECKOUT"], advance_ms=900000)
    assert live.get(handle)["snapshot"]["value"] == "cart"
    live.stop(handle)
    assert ran == ["start_machine", "send_events", "read_machine"]
