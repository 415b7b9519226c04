"""What the gate tells a client that never re-lists: routes in refusals, and the status tool.

Most clients keep the first tool list they saw. Such a client learns what to do only
from results, so:

- a `FORBIDDEN` refusal names the current state, the tools allowed now and the next
  step toward the tool that was asked for (the whole route, computed by
  `statekit.gate.guidance` on the engine with the workflow's guards);
- `Gate(status_tool="workflow_status")` serves an always-listed tool answering the
  state, the tools allowed now and the route to every other bound tool.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from mcp_types import CallToolResult, TextContent, ToolAnnotations

from statekit.gate.calls import GateCall, current_call
from statekit.gate.decision import Catalog
from statekit.gate.guidance import RouteFinder
from statekit.gate.listing import catalog_pass
from statekit.gate.record import Timer
from statekit.gate.results import META_KEY, state_label
from statekit.gate.store import StoreError

if TYPE_CHECKING:
    from statekit.gate.gate import Gate

NamesOf = Callable[[Any], Awaitable[list[str]]]

STATUS_DESCRIPTION = (
    "Where the workflow stands: its current state, the tools allowed now, and for every "
    "other tool the shortest sequence of tool calls (and timers) that makes it allowed. "
    "Call it whenever a tool is refused or you do not know what to call next."
)


def route_finder(gate: Gate) -> RouteFinder:
    """The gate's route finder, made on first use (a twin of its machine)."""
    finder: RouteFinder | None = gate.__dict__.get("_statekit_route_finder")
    if finder is None:
        finder = RouteFinder(
            gate.machine,
            gate.bindings,
            gate.is_visible,
            lambda: [b.tool for b in gate.bindings() if gate.creates_workflows(b.tool)],
        )
        gate.__dict__["_statekit_route_finder"] = finder
    return finder


async def guided_refusal(
    gate: Gate,
    result: CallToolResult,
    snapshot: Any,
    timers: Sequence[Timer],
    tool: str,
    catalog: Catalog,
) -> CallToolResult:
    """A `FORBIDDEN` refusal with the route from `snapshot` to a state where `tool` is allowed."""
    names = await catalog.get()
    route = route_finder(gate).routes(snapshot, timers, gate.clock(), [tool], names)[tool]
    payload = dict(result.structured_content or {})
    payload["route"] = route.to_json()
    payload["nextStep"] = route.steps[0].to_json() if route.steps else None
    meta = dict(result.meta or {})
    meta[META_KEY] = {**meta.get(META_KEY, {}), "route": route.to_json()}
    content = list(result.content)
    first = content[0]
    if isinstance(first, TextContent):
        content[0] = TextContent(type="text", text=f"{first.text} {route.sentence()}")
    return result.model_copy(
        update={"content": content, "structured_content": payload, "meta": meta}
    )


async def status_report(gate: Gate, call: GateCall, names_of: NamesOf) -> CallToolResult:
    """The status tool's answer for the workflow `call` belongs to."""
    catalog = Catalog(lambda: names_of(call.request))
    snapshot = call.snapshot
    allowed = await gate.allowed_now(call.request, snapshot, catalog)
    if snapshot is None:
        return _no_workflow(gate, allowed)
    names = await catalog.get()
    targets = [
        binding.tool
        for binding in gate.bindings()
        if binding.is_state_bound and binding.tool in names and binding.tool not in allowed
    ]
    timers = await _pending_timers(gate, call.key)
    routes = route_finder(gate).routes(snapshot, timers, gate.clock(), targets, names)
    payload: dict[str, Any] = {
        "state": snapshot.value,
        "allowedTools": allowed,
        "routes": {tool: route.to_json() for tool, route in routes.items()},
    }
    if call.handle is not None:
        payload["handle"] = call.handle
    lines = [_where(gate, snapshot, call.handle, allowed)]
    lines += [route.sentence() for route in routes.values()]
    if timers:
        due = min(timer.due_at for timer in timers)
        payload["nextTimerInSeconds"] = max(0.0, due - gate.clock())
    return CallToolResult(
        content=[TextContent(type="text", text="\n".join(lines))],
        structured_content=payload,
        _meta={META_KEY: {"state": snapshot.value, "allowedTools": allowed}},
    )


def _where(gate: Gate, snapshot: Any, handle: str | None, allowed: Sequence[str]) -> str:
    tools = ", ".join(allowed) if allowed else "(none)"
    if handle is not None and gate.state_handle_key is not None:
        return (
            f"Workflow {gate.state_handle_key}={json.dumps(handle)} is in state "
            f"{state_label(snapshot.value)}. Tools available now: {tools}."
        )
    return f"Workflow state: {state_label(snapshot.value)}. Tools available now: {tools}."


def _no_workflow(gate: Gate, allowed: Sequence[str]) -> CallToolResult:
    tools = ", ".join(allowed) if allowed else "(none)"
    if gate.mode == "handle":
        creators = " or ".join(
            sorted(b.tool for b in gate.bindings() if gate.creates_workflows(b.tool))
        )
        text = (
            f"No workflow given: pass {gate.state_handle_key} to see one, or call {creators} "
            f"to start one. Tools available now: {tools}."
        )
    else:
        text = f"This request belongs to no workflow. Tools available now: {tools}."
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content={"state": None, "allowedTools": list(allowed), "routes": {}},
    )


async def _pending_timers(gate: Gate, store_key: str) -> tuple[Timer, ...]:
    try:
        loaded = await gate.store.load(store_key)
        if loaded is None:
            return ()
        return tuple(gate.decode_record(store_key, loaded[0]).timers)
    except StoreError:
        return ()  # the route is still right, only without the pending timers' waits


def install_status_tool(gate: Gate, server: Any) -> None:
    """Serve `gate.status_tool` on `server` (FastMCP, `MCPServer` or a low-level `Server`)."""
    name = gate.status_tool
    assert name is not None
    if type(server).__module__.startswith("fastmcp"):
        _install_on_fastmcp(gate, server, name)
        return

    async def names_of(ctx: Any) -> list[str]:
        return await gate.catalog_names(ctx)

    @gate.tool(
        name,
        description=STATUS_DESCRIPTION,
        annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True),
    )
    async def workflow_status(arguments: dict[str, Any], call: GateCall) -> CallToolResult:
        return await status_report(gate, call, names_of)


def _install_on_fastmcp(gate: Gate, server: Any, name: str) -> None:
    from fastmcp.tools.base import ToolResult

    async def names_of(ctx: Any) -> list[str]:
        token = catalog_pass.set(True)
        try:
            return [tool.name for tool in await server.list_tools()]
        finally:
            catalog_pass.reset(token)

    async def workflow_status() -> ToolResult:
        call = current_call()
        if call is None:
            raise RuntimeError(f"{name} must be called through the gate")
        report = await status_report(gate, call, names_of)
        return ToolResult(
            content=list(report.content),
            structured_content=report.structured_content,
            meta=dict(report.meta or {}),
        )

    # FastMCP reads the signature's annotations, which `from __future__ import annotations`
    # left as text naming a class this module imports only here.
    workflow_status.__annotations__["return"] = ToolResult
    server.tool(
        workflow_status,
        name=name,
        description=STATUS_DESCRIPTION,
        annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True),
    )
    gate.bind(name)

