"""`Gate`: bind an MCP server's tools to the states of an XState v5 workflow.

A gated tool is listed and callable only while the workflow is in one of its
states; a successful call fires its event. `Gate.install(server)` wires
`tools/list`, `tools/call` and `subscriptions/listen` of an SDK low-level
`Server` (or an `MCPServer`), wrapping whatever tool handlers it already has.

How a transitioning call stays exactly-once across processes
------------------------------------------------------------
1. Under the in-process lock of the workflow key, load the record (version v).
2. Refuse (FORBIDDEN) if the tool is not allowed in that state, or (CONFLICT)
   if another call holds an unexpired lease on the workflow.
3. Reserve: save the same snapshot plus a lease, compare-and-set on v. Only one
   caller can win this write; a loser gets CONFLICT and its handler never runs.
   (A store that declares `process_local = True`, like `MemoryStore`, has no
   other writer: the lock held until step 5 is the reservation, and no lease
   is written.)
4. Run the handler.
5. Commit the new snapshot (success) or drop the lease (error), compare-and-set
   on the reserved version.

The lease expires after `lease_seconds` so a crashed process cannot freeze a
workflow. A handler that outlives its lease can lose the workflow to another
caller; the late commit then fails its compare-and-set and the call reports
CONFLICT, so choose `lease_seconds` above your slowest handler.
"""

from __future__ import annotations

import inspect
import logging
import secrets
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.subscriptions import SubscriptionBus

import statekit
from statekit.gate.bindings import Binding, make_binding
from statekit.gate.errors import CONFLICT, FORBIDDEN, NOT_FOUND, GateConfigError
from statekit.gate.keys import (
    KeyResolver,
    PrincipalResolver,
    WorkflowKey,
    authenticated_principal,
    is_modern,
)
from statekit.gate.listen import KeyedListenHandler
from statekit.gate.locks import KeyedLocks
from statekit.gate.record import Lease, Record, RecordDecoder, encode_record, snapshot_json_of
from statekit.gate.relay import ListChangedRelay
from statekit.gate.results import (
    error_result,
    refusal,
    state_label,
    to_call_result,
    with_state_note,
)
from statekit.gate.store import MemoryStore, StateStore, StoreConflict

logger = logging.getLogger("statekit.gate")

GateMode = Literal["session", "handle"]
ToolHandler = Callable[[dict[str, Any], "GateCall"], Awaitable[Any]]
#: Builds the payload of the fired event from the call's arguments and its result.
EventData = Callable[[dict[str, Any], types.CallToolResult], Mapping[str, Any]]
RawHandler = Callable[[Any, Any], Awaitable[Any]]


@dataclass(frozen=True)
class GateCall:
    """What a gated tool handler learns about its call."""

    tool: str
    arguments: dict[str, Any]
    #: The workflow's store key (`session:<id>`, `handle:<h>`, ...): key your own data by it.
    key: str
    #: The workflow's state before the call (an engine snapshot); None when there is no
    #: workflow (a creating tool's new one aside), e.g. an unbound tool called without a handle.
    snapshot: Any
    #: The state handle (handle mode, or the one a creating tool just minted).
    handle: str | None
    #: The SDK's request context (`ServerRequestContext`).
    request: Any
    #: For a call that fires an event: `<key>#<n>`, naming the n-th transition of this
    #: workflow. A retry of the same transition (after an error, or after a process died
    #: mid-call and its lease expired) gets the same id: use it as an idempotency key for
    #: side effects that must not happen twice.
    transition_id: str | None = None

    @property
    def state(self) -> Any:
        """The workflow's state value before the call."""
        return None if self.snapshot is None else self.snapshot.value

    @property
    def context(self) -> Any:
        """The workflow's context before the call."""
        return None if self.snapshot is None else self.snapshot.context


@dataclass(frozen=True)
class _GateTool:
    tool: types.Tool
    handler: ToolHandler
    creates_handle: bool


_VISIBILITY_CACHE_SIZE = 4096


def _value_key(value: Any) -> Any:
    """A hashable form of a snapshot value (`"a"` or `{"a": {"b": "c"}, ...}`)."""
    if isinstance(value, dict):
        return tuple(sorted((key, _value_key(child)) for key, child in value.items()))
    return value


def _default_event_data(
    arguments: dict[str, Any], result: types.CallToolResult
) -> Mapping[str, Any]:
    return {"arguments": arguments}


class Gate:
    """FSM state gating for one MCP server; see the module docstring and `docs/gate.md`."""

    def __init__(
        self,
        workflow: Mapping[str, Any] | Any,
        *,
        store: StateStore | None = None,
        mode: GateMode = "session",
        state_handle_key: str | None = None,
        principal: PrincipalResolver | None = authenticated_principal,
        lease_seconds: float = 60.0,
        workflow_input: Any = None,
        handle_factory: Callable[[], str] | None = None,
        state_note: bool = True,
        list_changed_relay: ListChangedRelay | None = None,
    ) -> None:
        """`workflow` is an XState v5 config dict or a machine from `statekit.create_machine`.

        `state_note=False` leaves successful results as the handler made them (no text
        block naming the state and the allowed tools, no `_meta`); refusals always say it.
        `list_changed_relay` carries 2026-07-28 list changes to listen streams opened on
        other replicas (e.g. `RedisListChangedRelay`).
        """
        if mode not in ("session", "handle"):
            raise GateConfigError(f"mode must be 'session' or 'handle', not {mode!r}")
        if mode == "handle" and not state_handle_key:
            raise GateConfigError(
                "mode='handle' needs state_handle_key (the handle argument's name)"
            )
        if mode == "session" and state_handle_key:
            raise GateConfigError("state_handle_key is only used with mode='handle'")
        if lease_seconds <= 0:
            raise GateConfigError("lease_seconds must be positive")
        self.machine: statekit.Machine = (
            workflow
            if isinstance(workflow, statekit.Machine)
            else statekit.create_machine(dict(workflow))
        )
        self.mode: GateMode = mode
        self.state_handle_key = state_handle_key
        self.store: StateStore = store if store is not None else MemoryStore()
        self.lease_seconds = lease_seconds
        self.state_note = state_note
        self._process_local_store = bool(getattr(self.store, "process_local", False))
        self._initial_snapshot, _ = statekit.initial_transition(self.machine, input=workflow_input)
        self._initial_record = Record(
            self._initial_snapshot, "", None, snapshot_json_of(self._initial_snapshot)
        )
        self._handle_factory = handle_factory or (lambda: secrets.token_urlsafe(12))
        self._keys = KeyResolver(
            handle_argument=state_handle_key,
            principal=principal,
            fallback_id=uuid.uuid4().hex,
        )
        self._locks = KeyedLocks()
        self._decoder = RecordDecoder(self.machine)
        self._listen = KeyedListenHandler(
            self._keys.resolve_without_handle, relay=list_changed_relay
        )
        self._bindings: dict[str, Binding] = {}
        self._compact: dict[str, str] = {}
        self._event_data: dict[str, EventData] = {}
        self._tools: dict[str, _GateTool] = {}
        self._visible_by_value: dict[Any, frozenset[str]] = {}
        self._allowed_by_value: dict[Any, list[str]] = {}
        self._inner_list: RawHandler | None = None
        self._inner_call: RawHandler | None = None
        self._installed = False

    # ------------------------------------------------------------------ registration

    def tool(
        self,
        name: str | None = None,
        *,
        description: str | None = None,
        compact_description: str | None = None,
        title: str | None = None,
        input_schema: Mapping[str, Any] | None = None,
        output_schema: Mapping[str, Any] | None = None,
        annotations: types.ToolAnnotations | None = None,
        bind: str | Iterable[str] | None = None,
        on_success: str | None = None,
        event_data: EventData | None = None,
        creates_handle: bool = False,
    ) -> Callable[[ToolHandler], ToolHandler]:
        """Register `async def handler(arguments, call)` as a tool bound to workflow states.

        `bind` names the states (ids or dotted paths) the tool is visible in
        (None: always visible); `on_success` is the event a successful call
        fires; `compact_description` is listed while the workflow sits in its
        initial state. `creates_handle` (handle mode) makes the tool start a
        new workflow and return its handle.
        """

        def register(handler: ToolHandler) -> ToolHandler:
            tool_name = name or handler.__name__
            if tool_name in self._tools:
                raise GateConfigError(f"tool {tool_name!r} is registered twice")
            if creates_handle:
                if self.mode != "handle":
                    raise GateConfigError(f"tool {tool_name!r}: creates_handle needs mode='handle'")
                if bind is not None:
                    raise GateConfigError(
                        f"tool {tool_name!r} creates workflows, so it cannot be bound to their states"
                    )
            text = description or inspect.getdoc(handler) or ""
            if not text:
                raise GateConfigError(f"tool {tool_name!r} needs a description (or a docstring)")
            tool = types.Tool(
                name=tool_name,
                title=title,
                description=text,
                input_schema=dict(input_schema or {"type": "object", "properties": {}}),
                output_schema=dict(output_schema) if output_schema is not None else None,
                annotations=annotations,
            )
            self._bind(tool_name, bind, on_success, compact_description, event_data)
            self._tools[tool_name] = _GateTool(tool, handler, creates_handle)
            return handler

        return register

    def bind(
        self,
        tool_name: str,
        states: str | Iterable[str] | None = None,
        on_success: str | None = None,
        *,
        compact_description: str | None = None,
        event_data: EventData | None = None,
    ) -> None:
        """Gate a tool that the server's own `tools/list` / `tools/call` handlers serve.

        The Python form of `bindState(states, transition)`.
        """
        if tool_name in self._tools:
            raise GateConfigError(f"tool {tool_name!r} is already a gate tool")
        self._bind(tool_name, states, on_success, compact_description, event_data)

    def _bind(
        self,
        tool_name: str,
        states: str | Iterable[str] | None,
        on_success: str | None,
        compact_description: str | None,
        event_data: EventData | None,
    ) -> None:
        if self._installed:
            raise GateConfigError("register tools before gate.install(server)")
        if tool_name in self._bindings:
            raise GateConfigError(f"tool {tool_name!r} is bound twice")
        self._bindings[tool_name] = make_binding(self.machine.model, tool_name, states, on_success)
        if compact_description is not None:
            self._compact[tool_name] = compact_description
        if event_data is not None:
            self._event_data[tool_name] = event_data

    # ------------------------------------------------------------------ installation

    def install(self, server: Any, *, subscriptions: SubscriptionBus | None = None) -> None:
        """Wire the gate into an SDK low-level `Server` or an `MCPServer`.

        Existing `tools/list` and `tools/call` handlers keep serving their tools
        (the gate filters and guards them); gate tools are served by the gate.
        The server advertises `tools.listChanged`. In session mode the gate
        serves `subscriptions/listen`; events published on `subscriptions` (the
        server's own bus; an `MCPServer`'s is found by itself) still reach every
        listen stream.
        """
        lowlevel = getattr(server, "_lowlevel_server", server)
        if not isinstance(lowlevel, Server):
            raise TypeError(f"expected an mcp Server or MCPServer, got {type(server).__name__}")
        if self._installed:
            raise GateConfigError("this gate is already installed")
        list_entry = lowlevel.get_request_handler("tools/list")
        call_entry = lowlevel.get_request_handler("tools/call")
        self._inner_list = None if list_entry is None else list_entry.handler
        self._inner_call = None if call_entry is None else call_entry.handler
        served_elsewhere = [name for name in self._bindings if name not in self._tools]
        if served_elsewhere and (self._inner_list is None or self._inner_call is None):
            raise GateConfigError(
                f"tools {served_elsewhere} are bound but the server has no tools/list and "
                "tools/call handlers serving them; register them with @gate.tool instead"
            )
        if self.mode == "handle" and not any(t.creates_handle for t in self._tools.values()):
            raise GateConfigError("mode='handle' needs a tool registered with creates_handle=True")
        lowlevel.add_request_handler("tools/list", types.PaginatedRequestParams, self.list_tools)
        lowlevel.add_request_handler("tools/call", types.CallToolRequestParams, self.call_tool)
        if self.mode == "session":
            upstream = (
                subscriptions
                if subscriptions is not None
                else getattr(server, "_subscriptions", None)
            )
            if (
                upstream is None
                and lowlevel.get_request_handler("subscriptions/listen") is not None
            ):
                logger.warning(
                    "statekit.gate: replacing the server's subscriptions/listen handler; pass "
                    "install(server, subscriptions=<its bus>) to keep relaying its other events"
                )
            self._listen.upstream = upstream
            lowlevel.add_request_handler(
                "subscriptions/listen", types.SubscriptionsListenRequestParams, self._listen
            )
        if self._inner_list is None and lowlevel.get_tool_input_schema is None:
            # Spares the 2026-07-28 HTTP path a full tools/list walk per call.
            lowlevel.get_tool_input_schema = self._input_schema_of
        self._advertise_list_changed(lowlevel)
        self._installed = True

    @staticmethod
    def _advertise_list_changed(lowlevel: Server[Any]) -> None:
        # Legacy clients only expect list_changed when InitializeResult says so,
        # and the SDK's HTTP path builds its options without NotificationOptions.
        original = lowlevel.create_initialization_options

        def with_tools_changed(
            notification_options: NotificationOptions | None = None,
            experimental_capabilities: dict[str, dict[str, Any]] | None = None,
            extensions: dict[str, dict[str, Any]] | None = None,
        ) -> Any:
            options = notification_options or NotificationOptions()
            options.tools_changed = True
            return original(options, experimental_capabilities, extensions)

        setattr(lowlevel, "create_initialization_options", with_tools_changed)  # noqa: B010

    def _input_schema_of(self, name: str) -> Mapping[str, Any] | None:
        gate_tool = self._tools.get(name)
        return None if gate_tool is None else self._presented(gate_tool.tool).input_schema

    # ------------------------------------------------------------------ views

    def is_visible(self, tool_name: str, snapshot: Any) -> bool:
        """True when `tool_name` is allowed while the workflow is at `snapshot` (None: no workflow)."""
        binding = self._bindings.get(tool_name)
        if binding is None or not binding.is_state_bound:
            return True
        return tool_name in self._bound_visible(snapshot)

    def _bound_visible(self, snapshot: Any) -> frozenset[str]:
        """The state-bound tools visible at `snapshot`, memoised per state value.

        Visibility depends on the state value alone, and a machine has few
        distinct values, so each is matched against the bindings once.
        """
        if snapshot is None:
            return frozenset()
        value_key = _value_key(snapshot.value)
        visible = self._visible_by_value.get(value_key)
        if visible is None:
            visible = frozenset(
                binding.tool
                for binding in self._bindings.values()
                if binding.is_state_bound
                and any(snapshot.matches(path) for path in binding.state_paths)
            )
            if len(self._visible_by_value) >= _VISIBILITY_CACHE_SIZE:
                self._visible_by_value.clear()
            self._visible_by_value[value_key] = visible
        return visible

    def _is_initial(self, snapshot: Any) -> bool:
        return bool(snapshot.value == self._initial_snapshot.value)

    def _needs_handle(self, tool_name: str) -> bool:
        binding = self._bindings.get(tool_name)
        if binding is None or (not binding.is_state_bound and binding.event is None):
            return False
        gate_tool = self._tools.get(tool_name)
        return gate_tool is None or not gate_tool.creates_handle

    def _presented(self, tool: types.Tool) -> types.Tool:
        """A tool as handle mode lists it: bound tools take the handle and say where they apply."""
        if self.mode != "handle" or not self._needs_handle(tool.name):
            return tool
        key = self.state_handle_key
        assert key is not None
        creators = [t.tool.name for t in self._tools.values() if t.creates_handle]
        schema = dict(tool.input_schema)
        properties = dict(schema.get("properties") or {})
        properties[key] = {
            "type": "string",
            "description": f"The workflow handle returned by {' or '.join(creators)}.",
        }
        schema["properties"] = properties
        schema["required"] = [*[r for r in schema.get("required", []) if r != key], key]
        binding = self._bindings[tool.name]
        where = ""
        if binding.is_state_bound:
            where = f" Allowed only while the workflow is in: {', '.join(binding.state_paths)}."
        description = f"{tool.description or ''}{where}".strip()
        return tool.model_copy(update={"input_schema": schema, "description": description})

    def _compacted(self, tool: types.Tool) -> types.Tool:
        compact = self._compact.get(tool.name)
        return tool if compact is None else tool.model_copy(update={"description": compact})

    async def _catalog(self, ctx: Any, params: Any) -> tuple[list[types.Tool], str | None]:
        """Every tool the server offers (gate tools, then the wrapped handler's), unfiltered by state."""
        cursor = getattr(params, "cursor", None)
        tools = [] if cursor else [gate_tool.tool for gate_tool in self._tools.values()]
        next_cursor: str | None = None
        if self._inner_list is not None:
            inner = await self._inner_list(ctx, params)
            tools.extend(inner.tools)
            next_cursor = inner.next_cursor
        return tools, next_cursor

    async def _is_listed_somewhere(self, ctx: Any, name: str) -> bool:
        """True when the caller's catalog (before state filtering) has `name`."""
        if name in self._tools:
            return True
        tools, _ = await self._catalog(ctx, None)
        return any(tool.name == name for tool in tools)

    async def _allowed_now(self, ctx: Any, snapshot: Any) -> list[str]:
        """The tools callable at `snapshot`, from the same pipeline `tools/list` uses."""
        if self._inner_list is None:
            # Only gate tools: the catalog is fixed, so the answer depends on the state alone.
            value_key = None if snapshot is None else _value_key(snapshot.value)
            allowed = self._allowed_by_value.get(value_key)
            if allowed is None:
                allowed = [name for name in self._tools if self.is_visible(name, snapshot)]
                if len(self._allowed_by_value) >= _VISIBILITY_CACHE_SIZE:
                    self._allowed_by_value.clear()
                self._allowed_by_value[value_key] = allowed
            return list(allowed)
        tools, _ = await self._catalog(ctx, None)
        return [tool.name for tool in tools if self.is_visible(tool.name, snapshot)]

    # ------------------------------------------------------------------ state

    async def _load(self, key: WorkflowKey) -> tuple[Record, int | None] | None:
        """The key's record and version; a key never saved starts at the initial state.

        Handles are the exception: they are minted by a creating tool, so an
        unknown one (guessed, mistyped or expired) is None, never a new workflow.
        """
        loaded = await self.store.load(key.store_key)
        if loaded is None:
            if key.kind == "handle":
                return None
            return self._initial_record, None
        text, version = loaded
        return self._decoder.decode(text), version

    async def snapshot_of(
        self, *, handle: str | None = None, key: WorkflowKey | None = None
    ) -> Any:
        """The stored snapshot of a handle (or any workflow key), or None."""
        if (handle is None) == (key is None):
            raise ValueError("pass exactly one of handle= or key=")
        loaded = await self._load(key or WorkflowKey("handle", handle or ""))
        return None if loaded is None else loaded[0].snapshot

    # ------------------------------------------------------------------ tools/list

    async def list_tools(
        self, ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        """The `tools/list` handler."""
        tools, next_cursor = await self._catalog(ctx, params)
        if self.mode == "handle":
            # 2026-07-28: the list must not vary per connection; the handle, not the list, carries state.
            return types.ListToolsResult(
                tools=[self._presented(tool) for tool in tools], next_cursor=next_cursor
            )
        loaded = await self._load(self._keys.resolve_without_handle(ctx))
        snapshot = None if loaded is None else loaded[0].snapshot
        initial = snapshot is not None and self._is_initial(snapshot)
        visible = [
            self._compacted(tool) if initial else tool
            for tool in tools
            if self.is_visible(tool.name, snapshot)
        ]
        return types.ListToolsResult(
            tools=visible, next_cursor=next_cursor, ttl_ms=0, cache_scope="private"
        )

    # ------------------------------------------------------------------ tools/call

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        """The `tools/call` handler."""
        name = params.name
        gate_tool = self._tools.get(name)
        binding = self._bindings.get(name)
        if gate_tool is not None and gate_tool.creates_handle:
            return await self._create_workflow(ctx, params, gate_tool, binding)
        if binding is None or (not binding.is_state_bound and binding.event is None):
            if gate_tool is not None:
                return await self._ungated_call(ctx, params, gate_tool)
            if self._inner_call is not None:
                return await self._inner_call(ctx, params)
            return error_result(f"Unknown tool: {name}")
        key = self._keys.resolve(ctx, params.arguments)
        async with self._locks.hold(key.store_key):
            return await self._gated_call(ctx, params, key, binding, gate_tool)

    async def _ungated_call(
        self, ctx: Any, params: types.CallToolRequestParams, gate_tool: _GateTool
    ) -> types.CallToolResult:
        """An always-visible gate tool: no lock, no check, but it sees (and reports) the state."""
        arguments = dict(params.arguments or {})
        key = self._keys.resolve(ctx, arguments)
        handle = key.value if key.kind == "handle" else None
        snapshot = None
        if self.mode == "session" or handle is not None:
            # In handle mode a call without a handle has no workflow worth reporting.
            loaded = await self._load(key)
            snapshot = None if loaded is None else loaded[0].snapshot
        call = GateCall(params.name, arguments, key.store_key, snapshot, handle, ctx)
        result = await self._run_gate_tool(gate_tool, call)
        if snapshot is None:
            return result
        return await self._noted(ctx, result, snapshot, handle)

    async def _gated_call(
        self,
        ctx: Any,
        params: types.CallToolRequestParams,
        key: WorkflowKey,
        binding: Binding,
        gate_tool: _GateTool | None,
    ) -> Any:
        name = params.name
        arguments = dict(params.arguments or {})
        handle = key.value if key.kind == "handle" else None
        loaded = await self._load(key)
        if loaded is None:
            creators = [t.tool.name for t in self._tools.values() if t.creates_handle]
            return refusal(
                NOT_FOUND,
                f"No workflow has {self.state_handle_key}={handle!r} (unknown or expired); "
                f"call {' or '.join(creators)} to start one.",
                state=None,
                allowed_tools=await self._allowed_now(ctx, None),
            )
        record, version = loaded
        snapshot = record.snapshot
        lease = record.active_lease(time.time())
        if lease is not None:
            return refusal(
                CONFLICT,
                f'Another call ("{lease.tool}") is moving this workflow right now; '
                "retry after it finishes.",
                state=snapshot.value,
                allowed_tools=await self._allowed_now(ctx, snapshot),
                details={"blockedTool": name},
            )
        if not self.is_visible(name, snapshot):
            if not await self._is_listed_somewhere(ctx, name):
                # The server's own filters hide this tool from the caller in every state:
                # answer as for a tool that does not exist, without confirming it does.
                return error_result(f"Unknown tool: {name}")
            return refusal(
                FORBIDDEN,
                f'Tool "{name}" is not available in the current workflow state '
                f'"{state_label(snapshot.value)}".',
                state=snapshot.value,
                allowed_tools=await self._allowed_now(ctx, snapshot),
                details={"blockedTool": name},
            )
        transition_id = None if binding.event is None else f"{key.store_key}#{record.step + 1}"
        call = GateCall(name, arguments, key.store_key, snapshot, handle, ctx, transition_id)
        if binding.event is None:
            result = await self._run(ctx, params, gate_tool, call)
            if not isinstance(result, types.CallToolResult):
                return result
            return await self._noted(ctx, result, snapshot, handle)
        try:
            reserved_version = await self._reserve(key, record, version, name, binding.event)
        except StoreConflict:
            return refusal(
                CONFLICT,
                "The workflow changed while this call was being checked (a concurrent call won); "
                "list the tools again before retrying.",
                state=snapshot.value,
                allowed_tools=await self._allowed_now(ctx, snapshot),
                details={"blockedTool": name},
            )
        try:
            result = await self._run(ctx, params, gate_tool, call)
        except BaseException:
            # Shielded: a cancelled call must still drop its lease, or the workflow
            # stays blocked until the lease expires.
            with anyio.CancelScope(shield=True):
                await self._release(key, record, reserved_version)
            raise
        if not isinstance(result, types.CallToolResult) or result.is_error:
            # An error, or a non-final result such as InputRequiredResult: nothing fires.
            await self._release(key, record, reserved_version)
            return result
        event = {
            **self._event_data.get(name, _default_event_data)(arguments, result),
            "type": binding.event,
        }
        try:
            next_snapshot, _actions = statekit.transition(self.machine, snapshot, event)
        except statekit.EngineError as error:
            # e.g. a guard raised. The handler ran; the workflow stays where it was.
            logger.exception("statekit.gate: event %s from %s failed", binding.event, name)
            with anyio.CancelScope(shield=True):
                await self._release(key, record, reserved_version)
            return error_result(
                f'Tool "{name}" ran, but the workflow could not take event {binding.event}: {error}'
            )
        try:
            # Shielded: the handler's side effect happened, so the transition must be
            # recorded even if the client cancels now; otherwise a later caller could
            # take over the expired lease and repeat the side effect.
            with anyio.CancelScope(shield=True):
                await self._save(key, next_snapshot, None, reserved_version, record.step + 1)
        except StoreConflict:
            logger.error(
                "statekit.gate: %s on %s ran but its lease expired before the commit; "
                "the workflow did not move (raise lease_seconds above the handler's duration)",
                name,
                key.store_key,
            )
            return refusal(
                CONFLICT,
                f'Tool "{name}" ran, but the workflow was taken over before its transition was '
                "saved; the state did not change.",
                state=snapshot.value,
                allowed_tools=await self._allowed_now(ctx, snapshot),
            )
        after = await self._allowed_now(ctx, next_snapshot)
        if self.mode == "session" and after != await self._allowed_now(ctx, snapshot):
            await self._notify_list_changed(ctx, key)
        return await self._noted(ctx, result, next_snapshot, handle, allowed=after)

    async def _save(
        self,
        key: WorkflowKey,
        snapshot: Any,
        lease: Lease | None,
        expected_version: int | None,
        step: int,
        snapshot_json: str | None = None,
    ) -> int:
        """Compare-and-set the record; what we wrote is remembered so the next load skips a restore."""
        text, record = encode_record(snapshot, lease, step, snapshot_json)
        version = await self.store.save(key.store_key, text, expected_version)
        self._decoder.remember(text, record)
        return version

    async def _reserve(
        self, key: WorkflowKey, record: Record, version: int | None, tool: str, event: str
    ) -> int | None:
        """Write a lease on the loaded version; raises `StoreConflict` if another caller got there first."""
        if self._process_local_store:
            # Nothing outside this process can write the store, and the per-key lock is
            # held until the commit: the lock is the reservation, and a write would add nothing.
            return version
        lease = Lease(secrets.token_hex(8), tool, event, time.time() + self.lease_seconds)
        return await self._save(
            key, record.snapshot, lease, version, record.step, record.snapshot_json
        )

    async def _release(
        self, key: WorkflowKey, record: Record, reserved_version: int | None
    ) -> None:
        """Drop this call's lease, leaving the snapshot as it was."""
        if self._process_local_store:
            return
        try:
            await self._save(
                key, record.snapshot, None, reserved_version, record.step, record.snapshot_json
            )
        except StoreConflict:
            logger.warning(
                "statekit.gate: lease on %s expired before it was released", key.store_key
            )

    async def _create_workflow(
        self,
        ctx: Any,
        params: types.CallToolRequestParams,
        gate_tool: _GateTool,
        binding: Binding | None,
    ) -> types.CallToolResult:
        """Run a creating tool: mint a handle, and store the new workflow if the handler succeeds."""
        handle = self._handle_factory()
        arguments = dict(params.arguments or {})
        key = WorkflowKey("handle", handle)
        call = GateCall(
            params.name,
            arguments,
            key.store_key,
            self._initial_snapshot,
            handle,
            ctx,
            f"{key.store_key}#0",
        )
        result = await self._run_gate_tool(gate_tool, call)
        if result.is_error:
            return result
        snapshot = self._initial_snapshot
        if binding is not None and binding.event is not None:
            event_data = self._event_data.get(params.name, _default_event_data)
            event = {**event_data(arguments, result), "type": binding.event}
            snapshot, _actions = statekit.transition(self.machine, snapshot, event)
        # A fresh random handle: nobody else can be writing it, so "absent" is the expected version.
        await self._save(
            key, snapshot, None, None, 1 if binding is not None and binding.event else 0
        )
        return await self._noted(ctx, result, snapshot, handle)

    async def _run(
        self,
        ctx: Any,
        params: types.CallToolRequestParams,
        gate_tool: _GateTool | None,
        call: GateCall,
    ) -> Any:
        if gate_tool is not None:
            return await self._run_gate_tool(gate_tool, call)
        assert self._inner_call is not None
        return await self._inner_call(ctx, params)

    @staticmethod
    async def _run_gate_tool(gate_tool: _GateTool, call: GateCall) -> types.CallToolResult:
        try:
            return to_call_result(await gate_tool.handler(call.arguments, call))
        except Exception as error:  # the tool boundary: a raising handler is an isError result
            logger.exception("statekit.gate: tool %s raised", call.tool)
            return error_result(f"Error executing tool {call.tool}: {error}")

    async def _noted(
        self,
        ctx: Any,
        result: types.CallToolResult,
        snapshot: Any,
        handle: str | None,
        *,
        allowed: list[str] | None = None,
    ) -> types.CallToolResult:
        if result.is_error or not self.state_note:
            return result
        return with_state_note(
            result,
            state=snapshot.value,
            allowed_tools=allowed
            if allowed is not None
            else await self._allowed_now(ctx, snapshot),
            handle_argument=self.state_handle_key,
            handle=handle,
        )

    async def _notify_list_changed(self, ctx: Any, key: WorkflowKey) -> None:
        """Tell the caller's client its tool list changed (legacy: on this call's stream)."""
        try:
            if is_modern(ctx):
                await self._listen.publish_tools_changed(key)
            else:
                await ctx.session.send_notification(
                    types.ToolListChangedNotification(), related_request_id=ctx.request_id
                )
        except Exception:  # a lost notification must not fail a call that already committed
            logger.exception("statekit.gate: could not send tools/list_changed")

    # ------------------------------------------------------------------ introspection

    def bindings(self) -> Sequence[Binding]:
        """Every binding, in registration order."""
        return list(self._bindings.values())
