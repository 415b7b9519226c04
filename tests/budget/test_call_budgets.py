"""Every tool call is bounded: time, output size, cancellation and progress (issue 14).

Each attack measured on main has a test here. Limits are set small so the tests are quick;
they assert the *outcome* (a code, a truncation reason, that the work stopped), never a time.
"""

from __future__ import annotations

import threading
import tracemalloc
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from mcp import Client

from statekit import tools
from statekit.budget import BudgetStop, CallBudget, check_budget, running
from statekit.errors import ToolError
from statekit.server import create_server
from statekit.server.calls import ToolCaller
from statekit.tools import registry
from statekit.tools.registry import ToolContext, ToolSpec

#: simulate_machine's 419 MB attack: 241 bytes of XState source whose assign builds a 4 MB string.
BIG_ASSIGN = """import { createMachine, assign } from "xstate";
export const m = createMachine({ id: "m", initial: "a", context: { s: "" }, states: { a: { on: {
  E: { actions: assign({ s: () => "x".repeat(4194304) }) } } } } });"""


def parallel_regions(count: int) -> dict[str, Any]:
    """`count` parallel two-state regions: 2**count states for a 2 KB input."""
    return {"id": "wide", "type": "parallel", "states": {
        f"r{i}": {"initial": "off", "states": {"off": {"on": {f"T{i}": "on"}}, "on": {"on": {f"T{i}": "off"}}}}
        for i in range(count)}}


def test_simulate_output_is_refused_before_it_fills_memory() -> None:
    context = ToolContext(max_output_bytes=16 * 1024 * 1024)
    tracemalloc.start()
    try:
        with pytest.raises(ToolError) as caught:
            tools.call("simulate_machine", {"machine": BIG_ASSIGN, "events": ["E"] * 100}, context=context)
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert caught.value.code == "output_too_large"
    assert "16777216-byte output limit" in caught.value.message and "--max-output-bytes" in caught.value.message
    assert caught.value.details["limit"] == 16 * 1024 * 1024
    assert peak < 200 * 1024 * 1024, f"peaked at {peak >> 20} MiB: the steps were built before being refused"


def test_a_result_over_the_output_limit_is_refused_naming_the_limit() -> None:
    with pytest.raises(ToolError) as caught:
        tools.call("simulate_machine", {"machine": parallel_regions(3), "events": ["T0"] * 50},
                   context=ToolContext(max_output_bytes=2000))
    assert caught.value.code == "output_too_large" and "2000-byte" in caught.value.message


def test_paths_on_a_small_wide_input_stop_at_the_call_deadline() -> None:
    """2 KB, 20 parallel regions, limit 1,000,000: grew past 3 GB on main."""
    result = tools.call("generate_graph_paths", {"machine": parallel_regions(20), "limit": 1_000_000, "algorithm": "shortest"},
                        context=ToolContext(call_seconds=0.5))
    assert result["truncated"] is True and result["truncatedReason"] == "time"


def test_paths_stop_when_the_call_is_cancelled() -> None:
    budget = CallBudget(seconds=None)
    threading.Timer(0.3, budget.cancel).start()
    result = registry.call("generate_graph_paths", {"machine": parallel_regions(20), "limit": 1_000_000, "algorithm": "shortest"},
                           context=ToolContext(), budget=budget)
    assert result["truncated"] is True and result["truncatedReason"] == "cancelled"


def big_d2(lines: int) -> str:
    return "\n".join(f"s{i} -> s{i + 1}: E{i}" for i in range(lines))


@pytest.mark.parametrize("tool", ["validate_machine", "convert_machine"])
def test_conversion_of_a_big_input_stops_at_the_deadline(tool: str) -> None:
    arguments: dict[str, Any] = {"machine": big_d2(40_000)}
    if tool == "convert_machine":
        arguments["to"] = "scxml"
    with pytest.raises(ToolError) as caught:
        tools.call(tool, arguments, context=ToolContext(call_seconds=0.05))
    assert caught.value.code == "deadline_exceeded" and "--call-timeout" in caught.value.message


def test_extraction_stops_at_the_deadline() -> None:
    states = ", ".join(f"s{i}: {{ on: {{ E: 's{i + 1}' }} }}" for i in range(20_000))
    source = f"import {{ createMachine }} from 'xstate';\nexport const m = createMachine({{ initial: 's0', states: {{ {states} }} }});"
    with pytest.raises(ToolError) as caught:
        tools.call("extract_machines_from_code", {"code": source}, context=ToolContext(call_seconds=0.05))
    assert caught.value.code == "deadline_exceeded"


def test_check_budget_is_a_no_op_outside_a_call_and_raises_inside() -> None:
    check_budget()  # library use: no budget, nothing happens
    budget = CallBudget(seconds=None)
    with running(budget):
        check_budget()
        budget.cancel()
        with pytest.raises(BudgetStop) as caught:
            check_budget()
    assert caught.value.error.code == "cancelled"


# -- through the MCP server: cancellation, overrun, progress ---------------------------------------

STOPPED = threading.Event()
STARTED = threading.Event()


def _spin(arguments: dict[str, Any]) -> dict[str, Any]:
    """Works until its budget says stop (like a traversal); records how it ended."""
    STARTED.set()
    try:
        while True:
            check_budget()
    finally:
        STOPPED.set()


def _sleepy(arguments: dict[str, Any]) -> dict[str, Any]:
    """Never checks its budget (code without cooperative checks)."""
    STARTED.set()
    STOPPED.wait(30)
    return {}


def _counting(arguments: dict[str, Any]) -> dict[str, Any]:
    from statekit.budget import report_progress

    for step in range(1, 6):
        report_progress(step, 5, f"step {step}")
        STOPPED.wait(0.3)  # reports are passed on at most every quarter second
    return {"done": True}


_OPEN = {"type": "object"}
SPIN = ToolSpec(name="demo_spin", title="spin", description="spins until stopped", input_schema=_OPEN, output_schema=_OPEN, function=_spin)
SLEEPY = ToolSpec(name="demo_sleepy", title="sleepy", description="never checks", input_schema=_OPEN, output_schema=_OPEN, function=_sleepy)
COUNTING = ToolSpec(name="demo_counting", title="counting", description="reports progress", input_schema=_OPEN, output_schema=_OPEN, function=_counting)


@pytest.fixture
def budget_tools(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    registry.tools()
    for spec in (SPIN, SLEEPY, COUNTING):
        monkeypatch.setitem(registry._REGISTRY, spec.name, spec)
    STOPPED.clear()
    STARTED.clear()
    yield
    STOPPED.set()


async def test_a_cancelled_call_stops_its_work(budget_tools: None) -> None:
    caller = ToolCaller(catalog={"demo_spin": SPIN}, max_source_bytes=1024, context=ToolContext(call_seconds=None))
    async with anyio.create_task_group() as group:
        group.start_soon(caller.call, SPIN, {}, None)
        await anyio.to_thread.run_sync(STARTED.wait, 30)
        group.cancel_scope.cancel()  # what the SDK does on notifications/cancelled or a lost client
    assert await anyio.to_thread.run_sync(STOPPED.wait, 30), "the worker kept running after the cancel"


async def test_a_call_past_its_deadline_is_answered_and_its_work_stopped(budget_tools: None) -> None:
    # In server threads (in_process): the budget check itself stops the work; a supervised call's
    # worker is killed instead (tests/tools/test_supervisor.py).
    server = create_server(tools=["demo_spin"], context=ToolContext(call_seconds=0.3), in_process=True)
    async with Client(server, mode="2026-07-28") as client:
        result = await client.call_tool("demo_spin", {})
    assert result.is_error and result.structured_content is not None
    assert result.structured_content["code"] == "deadline_exceeded"
    assert await anyio.to_thread.run_sync(STOPPED.wait, 30)


async def test_work_that_never_checks_is_still_answered_at_the_deadline(budget_tools: None) -> None:
    server = create_server(tools=["demo_sleepy"], context=ToolContext(call_seconds=0.2))
    async with Client(server, mode="legacy") as client:
        result = await client.call_tool("demo_sleepy", {})
    assert result.is_error and result.structured_content is not None
    assert result.structured_content["code"] == "deadline_exceeded"


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_progress_notifications_reach_a_client_that_asked(budget_tools: None, era: str) -> None:
    reports: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        reports.append((progress, total, message))

    server = create_server(tools=["demo_counting"])
    async with Client(server, mode=era) as client:
        result = await client.call_tool("demo_counting", {}, progress_callback=on_progress)
        silent = await client.call_tool("demo_counting", {})
    assert result.structured_content == {"done": True} and silent.structured_content == {"done": True}
    assert reports and reports[-1] == (5, 5, "step 5")
    assert [r[0] for r in reports] == sorted(r[0] for r in reports)


async def test_an_http_client_going_away_stops_its_work(budget_tools: None) -> None:
    """A client that disconnects mid-call (gives up) used to leave the work running for ever."""
    import asyncio
    import contextlib
    import json

    import uvicorn

    from statekit.server.access import AccessPolicy, default_allowed_hosts
    from statekit.server.http_app import bind_socket, build_http_app
    from statekit.server.http_limits import HttpLimits, uvicorn_config

    server = create_server(tools=["demo_spin"], context=ToolContext(call_seconds=None), in_process=True)
    app = build_http_app(server, access=AccessPolicy(None), allowed_hosts=default_allowed_hosts("127.0.0.1"))
    sock = bind_socket("127.0.0.1", 0)
    runner = uvicorn.Server(uvicorn_config(app, HttpLimits()))
    task = asyncio.create_task(runner.serve(sockets=[sock]))
    try:
        async with asyncio.timeout(10):
            while not runner.started:
                await asyncio.sleep(0.01)
        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"}}
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                           "params": {"name": "demo_spin", "arguments": {}, "_meta": meta}}).encode()
        _reader, writer = await asyncio.open_connection("127.0.0.1", sock.getsockname()[1])
        writer.write(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Accept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2026-07-28\r\n"
                     b"Mcp-Method: tools/call\r\nMcp-Name: demo_spin\r\n"
                     b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
        await writer.drain()
        assert await anyio.to_thread.run_sync(STARTED.wait, 30)
        writer.close()  # the client gives up
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()
        assert await anyio.to_thread.run_sync(STOPPED.wait, 30), "the work kept running after the client left"
    finally:
        STOPPED.set()
        runner.should_exit = True
        runner.force_exit = True
        async with asyncio.timeout(10):
            await task
        sock.close()
