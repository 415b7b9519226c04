"""A client that never re-lists completes gated workflows from what refusals and the status tool say.

Most MCP clients keep the first tool list they saw (Claude Desktop, Codex, Cursor do not
refresh on `list_changed`). The scripted client here lists once, then only calls tools: it
starts from its goal (a tool it may never have seen listed), and when a call is refused it
follows the route the refusal names (or, in the second strategy, the route the status tool
gives). It must finish the workflow with at most one refused call per workflow state, on
FastMCP (through fastmcp's own Client), the SDK's `MCPServer` and the low-level `Server`
(through the SDK's Client), in both protocol eras.

Calls go out as raw `tools/call` requests on the client's session: the clients' `call_tool`
re-lists by itself when a result comes back for a tool missing from its cached list, which
is exactly what a stale client does not do. The server counts the `tools/list` requests.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types
import pytest
from fastmcp import Client as FastMCPClient
from mcp import Client
from stale_servers import KINDS, Served, build

from statekit.gate.results import state_label

ERAS = ("legacy", "2026-07-28")
#: What the user asked for, per workflow: the data the agent brings, and the tool that finishes it.
TASKS: dict[str, tuple[list[tuple[str, dict[str, Any]]], str]] = {
    "invoice": ([("add_line_item", {"description": "Consulting, October", "amount": 1200})], "discharge_invoice"),
    "refund": ([], "pay_refund"),
}
ARGUMENTS: dict[str, dict[str, Any]] = {"attach_evidence": {"document": "receipt-0042.pdf"}}
FINAL = {"invoice": "discharged", "refund": "paid"}


@dataclass
class StaleClient:
    """Lists once, never again; calls tools with raw `tools/call` requests."""

    session: Any
    served: Served
    first_list: list[str] = field(default_factory=list)
    refusals: Counter[str] = field(default_factory=Counter)
    calls: list[str] = field(default_factory=list)

    async def call(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        self.calls.append(name)
        request = types.CallToolRequest(params=types.CallToolRequestParams(name=name, arguments=arguments))
        result: types.CallToolResult = await self.session.send_request(request, types.CallToolResult)
        return result

    async def follow(self, steps: list[dict[str, Any]]) -> None:
        """Take the steps of a route: call each tool, or wait (advance the gate's clock) for a timer."""
        for step in steps:
            if "wait" in step:
                self.served.clock.now += step["wait"]
                continue
            result = await self.call(step["call"], ARGUMENTS.get(step["call"], {}))
            assert not result.is_error, (step, result.content)

    async def pursue(self, goal: str) -> types.CallToolResult:
        """Call `goal`; on each refusal follow its route, then call `goal` again."""
        for _attempt in range(10):
            result = await self.call(goal, ARGUMENTS.get(goal, {}))
            if not result.is_error:
                return result
            payload = result.structured_content
            assert payload is not None and payload["code"] == "FORBIDDEN", result.content
            self.refusals[state_label(payload["state"])] += 1
            route = payload["route"]
            assert route["reachable"], route
            assert payload["nextStep"] == route["steps"][0]
            await self.follow(route["steps"])
        raise AssertionError(f"{goal} never succeeded: {self.calls}")


@asynccontextmanager
async def connected(served: Served, kind: str, era: str) -> AsyncIterator[StaleClient]:
    lists = count_lists(served)
    if kind == "fastmcp":
        async with FastMCPClient(served.server, mode="legacy" if era == "legacy" else "auto") as fast:
            client = StaleClient(fast.session, served)
            client.first_list = [tool.name for tool in await fast.list_tools()]
            assert_era(fast.session, era)
            yield client
    else:
        async with Client(served.server, mode=era) as sdk:
            client = StaleClient(sdk.session, served)
            client.first_list = [tool.name for tool in (await sdk.list_tools()).tools]
            assert_era(sdk.session, era)
            yield client
    assert lists == [1], "the stale client listed the tools once and never again"


def assert_era(session: Any, era: str) -> None:
    negotiated = session._negotiated_version
    assert (negotiated == "2026-07-28") == (era == "2026-07-28"), negotiated


def count_lists(served: Served) -> list[int]:
    """Count the server's `tools/list` requests (wrapping the low-level handler every kind ends in)."""
    lowlevel = getattr(served.server, "_lowlevel_server", None) or getattr(served.server, "_mcp_server", served.server)
    entry = lowlevel.get_request_handler("tools/list")
    assert entry is not None
    inner = entry.handler
    counted = [0]

    async def counting(ctx: Any, params: Any) -> Any:
        counted[0] += 1
        return await inner(ctx, params)

    lowlevel.add_request_handler("tools/list", types.PaginatedRequestParams, counting)
    return counted


async def final_state(client: StaleClient) -> Any:
    status = await client.call("workflow_status", {})
    assert status.structured_content is not None
    return status.structured_content["state"]


@pytest.mark.parametrize("workflow", ["invoice", "refund"])
@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("kind", KINDS)
async def test_a_stale_client_completes_the_workflow_from_refusals(kind: str, era: str, workflow: str) -> None:
    served = build(kind, workflow)
    given, goal = TASKS[workflow]
    async with connected(served, kind, era) as client:
        # It never saw the tool it must call listed (legacy), or saw it listed with the states
        # it needs declared (2026-07-28 lists are static), but not where it stands now.
        assert (goal in client.first_list) == (era == "2026-07-28")
        for name, arguments in given:
            assert not (await client.call(name, arguments)).is_error
        done = await client.pursue(goal)
        assert not done.is_error
        assert await final_state(client) == FINAL[workflow]
    assert client.refusals and max(client.refusals.values()) <= 1, client.refusals
    assert served.runs[goal] == 1  # the refused attempts never reached the handler


@pytest.mark.parametrize("workflow", ["invoice", "refund"])
@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("kind", KINDS)
async def test_a_stale_client_completes_the_workflow_from_the_status_tool(kind: str, era: str, workflow: str) -> None:
    served = build(kind, workflow)
    given, goal = TASKS[workflow]
    async with connected(served, kind, era) as client:
        assert "workflow_status" in client.first_list
        for name, arguments in given:
            assert not (await client.call(name, arguments)).is_error
        status = await client.call("workflow_status", {})
        assert status.structured_content is not None
        route = status.structured_content["routes"][goal]
        await client.follow(route["steps"])
        assert not (await client.call(goal, ARGUMENTS.get(goal, {}))).is_error
        assert await final_state(client) == FINAL[workflow]
    assert not client.refusals


async def test_the_refund_route_waits_for_the_timer_and_assumes_the_guard_on_arguments() -> None:
    served = build("lowlevel", "refund")
    async with connected(served, "lowlevel", "legacy") as client:
        refused = await client.call("pay_refund", {})
        text = refused.content[0].text  # type: ignore[union-attr]
        assert text == (
            'FORBIDDEN: Tool "pay_refund" is not available in the current workflow state "requested". '
            "Tools available now: attach_evidence, submit_refund, workflow_status. "
            'Next step toward "pay_refund": call attach_evidence (-> requested), assuming guard '
            "validDocument passes; then call submit_refund (-> cooling); then wait 60 s for the timer "
            "(-> payable); then call pay_refund."
        )
        # submit_refund is listed in `requested` but its guard (hasEvidence, on the context) fails:
        # the route is the one the engine takes with the guards, not the one the graph suggests.
        assert refused.structured_content is not None
        assert [step.get("call") for step in refused.structured_content["route"]["steps"]] == [
            "attach_evidence", "submit_refund", None]
        await client.call("attach_evidence", ARGUMENTS["attach_evidence"])
        await client.call("submit_refund", {})
        served.clock.now += 20
        status = await client.call("workflow_status", {})
        assert status.structured_content is not None
        assert status.structured_content["routes"]["pay_refund"]["steps"] == [
            {"wait": 40.0, "event": "xstate.after.60000.refund.cooling", "to": "payable"}]
        assert status.structured_content["nextTimerInSeconds"] == 40.0
        served.clock.now += 40
        assert not (await client.call("pay_refund", {})).is_error


async def test_a_tool_no_route_reaches_says_so() -> None:
    served = build("lowlevel", "refund")
    async with connected(served, "lowlevel", "2026-07-28") as client:
        await client.call("attach_evidence", ARGUMENTS["attach_evidence"])
        await client.call("submit_refund", {})
        await client.call("cancel_refund", {})
        refused = await client.call("pay_refund", {})
        assert refused.structured_content is not None
        assert refused.structured_content["route"] == {
            "tool": "pay_refund",
            "reachable": False,
            "reason": "no sequence of tool calls and timers from the current state reaches a state "
            "where it is allowed",
        }
        assert refused.structured_content["nextStep"] is None
        assert "cannot be reached from here" in refused.content[0].text  # type: ignore[union-attr]


async def test_a_route_that_ignored_the_guards_would_cost_a_second_refusal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plants the forgetting: routes computed as if every guard passed lead the client astray."""
    from statekit.gate.guidance import _ProbingEvaluator

    monkeypatch.setattr(_ProbingEvaluator, "guard", lambda self, guard, scope: True)
    served = build("lowlevel", "refund")
    async with connected(served, "lowlevel", "legacy") as client:
        refused = await client.call("pay_refund", {})
        assert refused.structured_content is not None
        assert [step.get("call") for step in refused.structured_content["route"]["steps"]] == [
            "submit_refund", None]
        with pytest.raises(AssertionError, match="never succeeded"):
            await client.pursue("pay_refund")
    assert client.refusals["requested"] > 1


@pytest.mark.parametrize("kind", ["fastmcp", "lowlevel"])
async def test_in_handle_mode_the_status_tool_takes_the_handle(kind: str) -> None:
    from fastmcp import FastMCP
    from mcp.server.lowlevel.server import Server

    from statekit.gate import Gate, current_call

    workflow = {"id": "invoice", "initial": "draft", "states": {
        "draft": {"on": {"SUBMIT": "review"}}, "review": {"on": {"APPROVE": "approved"}},
        "approved": {"type": "final"}}}
    gate = Gate(workflow, mode="handle", state_handle_key="invoice_id", status_tool="workflow_status")
    server: Any
    if kind == "fastmcp":
        server = FastMCP("handles")
        server.tool(lambda: {"invoice_id": current_call().handle}, name="create", description="Start.")
        server.tool(lambda: "ok", name="submit", description="Submit.")
        server.tool(lambda: "ok", name="approve", description="Approve.")
        gate.bind("create", creates_handle=True)
        gate.bind("submit", "draft", "SUBMIT")
        gate.bind("approve", "review", "APPROVE")
    else:
        server = Server("handles")

        async def create(arguments: dict[str, Any], call: Any) -> dict[str, Any]:
            return {"invoice_id": call.handle}

        async def step(arguments: dict[str, Any], call: Any) -> str:
            return "ok"

        gate.tool("create", description="Start.", creates_handle=True)(create)
        gate.tool("submit", description="Submit.", bind="draft", on_success="SUBMIT")(step)
        gate.tool("approve", description="Approve.", bind="review", on_success="APPROVE")(step)
    gate.install(server)
    async with Client(server if kind == "lowlevel" else server._mcp_server, mode="2026-07-28") as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert "invoice_id" in listed["workflow_status"].input_schema["properties"]
        assert "invoice_id" not in listed["workflow_status"].input_schema.get("required", [])
        created = (await client.call_tool("create", {})).structured_content
        assert created is not None
        status = await client.call_tool("workflow_status", {"invoice_id": created["invoice_id"]})
        assert status.structured_content is not None
        assert status.structured_content["state"] == "draft"
        assert status.structured_content["handle"] == created["invoice_id"]
        assert status.structured_content["routes"]["approve"]["steps"] == [
            {"call": "submit", "event": "SUBMIT", "to": "review"}]
        without = await client.call_tool("workflow_status", {})
        assert without.structured_content == {"state": None, "allowedTools": ["create", "workflow_status"], "routes": {}}
        assert "call create to start one" in without.content[0].text  # type: ignore[union-attr]
