"""`Gate`: bind an MCP server's tools to the states of an XState v5 workflow.

A gated tool is listed and callable only while the workflow is in one of its
states; a successful call fires its event. `Gate.install(server)` wires the gate
into an SDK low-level `Server`, an `MCPServer` (through their `tools/list`,
`tools/call` and `subscriptions/listen` handlers) or a FastMCP 4.x server
(through a FastMCP middleware, see `statekit.gate.fastmcp`).

The gate fails closed: wherever it cannot tell that a call is allowed (no key
for the workflow, an unreadable record, a store outage, bindings that do not
match the server) it refuses with a coded, explained `isError` result and never
runs the handler.

How a transitioning call stays exactly-once across processes
------------------------------------------------------------
1. Under the in-process lock of the workflow key, load the record (version v),
   firing any `after` timer that fell due (a compare-and-set write of its own).
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

import asyncio
import inspect
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.subscriptions import SubscriptionBus
from mcp.shared.exceptions import MCPError

from statekit.engine import Machine, create_machine, initial_transition, transition
from statekit.errors import EngineError
from statekit.gate.bindings import Binding, make_binding, reachable_state_ids
from statekit.gate.calls import GateCall, run_with_call
from statekit.gate.errors import (
    CONFLICT,
    FORBIDDEN,
    GATE_MISCONFIGURED,
    HANDLE_REQUIRED,
    LIST_REFUSED_RPC_CODE,
    NO_WORKFLOW_KEY,
    NOT_FOUND,
    STORE_UNAVAILABLE,
    GateConfigError,
)
from statekit.gate.hooks import TransitionHook, TransitionInfo, run_hooks
from statekit.gate.keys import (
    KeyResolver,
    NoWorkflowKey,
    PrincipalResolver,
    WorkflowKey,
    authenticated_principal,
    is_modern,
)
from statekit.gate.listen import KeyedListenHandler
from statekit.gate.locks import KeyedLocks
from statekit.gate.properties import require_properties
from statekit.gate.record import (
    AuditEntry,
    Lease,
    Record,
    RecordDecoder,
    Timer,
    encode_record,
    snapshot_json_of,
)
from statekit.gate.relay import ListChangedRelay
from statekit.gate.results import (
    error_result,
    refusal,
    state_label,
    store_fault,
    to_call_result,
)
from statekit.gate.store import (
    CorruptRecord,
    MemoryStore,
    StateStore,
    StoreConflict,
    StoreConflictLoop,
    StoreError,
)
from statekit.gate.surfaces import _SDK, SDK_TOOLS, Surface, ToolView
from statekit.gate.timers import FiredTimer, apply_timer_actions, fire_due
from statekit.gate.wayfinding import guided_refusal, install_status_tool

logger = logging.getLogger("statekit.gate")

GateMode = Literal["session", "handle"]
ToolHandler = Callable[[dict[str, Any], GateCall], Awaitable[Any]]
#: Builds the payload of the fired event from the call's arguments and its result.
EventData = Callable[[dict[str, Any], Any], Mapping[str, Any]]
RawHandler = Callable[[Any, Any], Awaitable[Any]]
T = TypeVar("T")

#: Set while a gate lists the server's catalog for itself (allowed tools), so that every
#: gate's list filter lets the catalog through unfiltered.
catalog_pass: ContextVar[bool] = ContextVar("statekit_gate_catalog_pass", default=False)


@dataclass(frozen=True)
class _GateTool:
    tool: types.Tool
    handler: ToolHandler
    creates_handle: bool


@dataclass
class Catalog:
    """The names the caller can list (before any gate's state filter), fetched at most once per call."""

    fetch: Callable[[], Awaitable[list[str]]]
    names: list[str] | None = None

    async def get(self) -> list[str]:
        if self.names is None:
            self.names = await self.fetch()
        return self.names


@dataclass
class _Loaded:
    record: Record
    version: int | None
    fired: list[FiredTimer] = field(default_factory=list)
    #: The snapshot before the timers fired.
    before: Any = None


_VISIBILITY_CACHE_SIZE = 4096
_SESSIONS_PER_KEY = 8
_SESSION_KEYS = 10_000


def _value_key(value: Any) -> Any:
    """A hashable form of a snapshot value (`"a"` or `{"a": {"b": "c"}, ...}`)."""
    if isinstance(value, dict):
        return tuple(sorted((key, _value_key(child)) for key, child in value.items()))
    return value


def _default_event_data(arguments: dict[str, Any], result: Any) -> Mapping[str, Any]:
    return {"arguments": arguments}


class Gate:
    """FSM state gating for one MCP server; see the module docstring and `docs/gate.md`."""

    def __init__(
        self,
        workflow: Mapping[str, Any] | Machine,
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
        shared_fallback: bool = False,
        fallback_key: str | None = None,
        namespace: str | None = None,
        clock: Callable[[], float] = time.time,
        on_transition: TransitionHook | Sequence[TransitionHook] | None = None,
        history_size: int = 20,
        properties: Sequence[Mapping[str, Any]] | None = None,
        status_tool: str | None = None,
    ) -> None:
        """`workflow` is an XState v5 config dict or a machine from `statekit.create_machine`.

        `state_note=False` leaves successful results as the handler made them (no text
        block naming the state and the allowed tools, no `_meta`); refusals always say it.
        `list_changed_relay` carries list changes to listen streams opened on other
        replicas (e.g. `RedisListChangedRelay`). `shared_fallback=True` lets HTTP requests
        with no session, handle or principal share one workflow (off by default: they are
        refused). `fallback_key` names that shared workflow (default: the workflow's id,
        so a durable store resumes it after a restart). `namespace` prefixes every store
        key (default `<workflow id>/`), so several gates can share one store. `clock`
        (epoch seconds) drives timers and leases. `history_size` transitions are kept in
        each record as an audit trail. `properties` (as `check_machine_properties` takes
        them) must hold over every state the workflow can reach, or the gate is not made.
        `status_tool` names an always-listed tool the gate serves, answering the state, the
        tools allowed now and the route to every other bound tool (`gate/wayfinding.py`).
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
        if history_size < 0:
            raise GateConfigError("history_size must be zero or positive")
        self.machine: Machine = (
            workflow if isinstance(workflow, Machine) else create_machine(dict(workflow))
        )
        self.workflow_id: str = str(self.machine.model.id)
        if properties:
            require_properties(self.machine, properties, workflow_input)
        self.namespace = f"{self.workflow_id}/" if namespace is None else namespace
        self.mode: GateMode = mode
        self.state_handle_key = state_handle_key
        self.store: StateStore = store if store is not None else MemoryStore()
        self.lease_seconds = lease_seconds
        self.state_note = state_note
        self.clock = clock
        self.history_size = history_size
        self.status_tool = status_tool
        hooks: Sequence[TransitionHook]
        if on_transition is None:
            hooks = ()
        elif callable(on_transition):
            hooks = (on_transition,)
        else:
            hooks = tuple(on_transition)
        self._hooks: list[TransitionHook] = list(hooks)
        self._process_local_store = bool(getattr(self.store, "process_local", False))
        self._workflow_input = workflow_input
        self._initial_snapshot, self._initial_actions = initial_transition(
            self.machine, input=workflow_input
        )
        self._initial_json = snapshot_json_of(self._initial_snapshot)
        self._initial_has_timers = bool(apply_timer_actions((), self._initial_actions, 0.0))
        self._handle_factory = handle_factory or (lambda: secrets.token_urlsafe(12))
        self._keys = KeyResolver(
            handle_argument=state_handle_key,
            principal=principal,
            fallback_id=fallback_key or self.workflow_id,
            shared_fallback=shared_fallback,
        )
        self._locks = KeyedLocks()
        self._decoder = RecordDecoder(self.machine)
        self._listen = KeyedListenHandler(self._listen_key, relay=list_changed_relay)
        self._reachable = reachable_state_ids(self.machine.model)
        self._bindings: dict[str, Binding] = {}
        self._creators: set[str] = set()
        self._compact: dict[str, str] = {}
        self._event_data: dict[str, EventData] = {}
        self._tools: dict[str, _GateTool] = {}
        self._visible_by_value: dict[Any, frozenset[str]] = {}
        self._inner_list: RawHandler | None = None
        self._inner_call: RawHandler | None = None
        self._installed = False
        #: Set while the bindings do not match what the server lists; every gated call is refused.
        self._config_problem: str | None = None
        self._bindings_checked = False
        self._listed_names: set[str] = set()
        self._warned_no_key = False
        #: The other gates on the same server (composition: each filters the others' names).
        self._group: list[Gate] = [self]
        #: Legacy sessions seen per store key (bounded, most recent first out last), so a
        #: timer fired by the sweeper can notify them on their standalone stream.
        self._sessions: OrderedDict[str, dict[int, Any]] = OrderedDict()

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
            self._bind(tool_name, bind, on_success, compact_description, event_data, creates_handle)
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
        creates_handle: bool = False,
    ) -> None:
        """Gate a tool that the server's own handlers serve (the Python `bindState(states, transition)`).

        The handler reads the workflow key, state, handle and `transition_id` with
        `statekit.gate.current_call()`. `creates_handle=True` (handle mode) makes the tool
        start a new workflow: the handler finds the minted handle in `current_call().handle`.
        """
        if tool_name in self._tools:
            raise GateConfigError(f"tool {tool_name!r} is already a gate tool")
        self._bind(tool_name, states, on_success, compact_description, event_data, creates_handle)

    def _bind(
        self,
        tool_name: str,
        states: str | Iterable[str] | None,
        on_success: str | None,
        compact_description: str | None,
        event_data: EventData | None,
        creates_handle: bool,
    ) -> None:
        if self._installed:
            raise GateConfigError("register tools before gate.install(server)")
        if tool_name in self._bindings:
            raise GateConfigError(f"tool {tool_name!r} is bound twice")
        if creates_handle:
            if self.mode != "handle":
                raise GateConfigError(f"tool {tool_name!r}: creates_handle needs mode='handle'")
            if states is not None:
                raise GateConfigError(
                    f"tool {tool_name!r} creates workflows, so it cannot be bound to their states"
                )
            self._creators.add(tool_name)
        self._bindings[tool_name] = make_binding(
            self.machine.model, tool_name, states, on_success, self._reachable
        )
        if compact_description is not None:
            self._compact[tool_name] = compact_description
        if event_data is not None:
            self._event_data[tool_name] = event_data

    def add_transition_hook(self, hook: TransitionHook) -> None:
        """Call `hook(TransitionInfo)` after every committed transition (its failures are logged only)."""
        self._hooks.append(hook)

    # ------------------------------------------------------------------ installation

    def install(self, server: Any, *, subscriptions: SubscriptionBus | None = None) -> None:
        """Wire the gate into a FastMCP 4.x server, an SDK low-level `Server` or an `MCPServer`.

        FastMCP: the gate adds itself as a middleware (install it after the middleware
        that should see refusals too) and serves only `gate.bind` tools. SDK servers:
        existing `tools/list` and `tools/call` handlers keep serving their tools (the gate
        filters and guards them); gate tools are served by the gate. The server
        advertises `tools.listChanged`. In session mode the gate serves
        `subscriptions/listen`; events published on `subscriptions` (the server's own
        bus; an `MCPServer`'s is found by itself) still reach every listen stream.
        """
        if self._installed:
            raise GateConfigError("this gate is already installed")
        self._check_modes()
        if self.status_tool is not None:
            install_status_tool(self, server)
        if type(server).__module__.startswith("fastmcp"):
            from statekit.gate.fastmcp_middleware import install_on_fastmcp

            if self._tools:
                raise GateConfigError(
                    f"on FastMCP, register tools with @mcp.tool and gate them with gate.bind; "
                    f"@gate.tool tools {sorted(self._tools)} cannot be served"
                )
            install_on_fastmcp(self, server)
            self._installed = True
            return
        lowlevel = getattr(server, "_lowlevel_server", server)
        if not isinstance(lowlevel, Server):
            raise TypeError(
                f"expected a FastMCP server, an mcp Server or an MCPServer, got {type(server).__name__}"
            )
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
        if not served_elsewhere:
            self._bindings_checked = True
        self.join_group(lowlevel)
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
                and not isinstance(
                    lowlevel.get_request_handler("subscriptions/listen").handler,  # type: ignore[union-attr]
                    KeyedListenHandler,
                )
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

    def _check_modes(self) -> None:
        if self.mode == "handle" and not self._creators:
            raise GateConfigError(
                "mode='handle' needs a tool that creates workflows (creates_handle=True)"
            )

    def join_group(self, server: Any) -> None:
        """Share composition with the other gates installed on `server`."""
        group: list[Gate] = server.__dict__.setdefault("_statekit_gates", [])
        group.append(self)
        for gate in group:
            gate._group = group
        # One listen handler per server: a client's stream hears every gate's changes.
        shared = group[0]._listen
        if shared is not self._listen:
            shared.adopt_relay(self._listen)
        self._listen = shared
        self._listen.resolve = lambda ctx: _group_listen_key(group, ctx)

    @staticmethod
    def _advertise_list_changed(lowlevel: Server[Any]) -> None:
        # Legacy clients only expect list_changed when InitializeResult says so,
        # and the SDK's HTTP path builds its options without NotificationOptions.
        original = lowlevel.create_initialization_options
        if getattr(original, "_statekit_gate", False):
            return

        def with_tools_changed(
            notification_options: NotificationOptions | None = None,
            experimental_capabilities: dict[str, dict[str, Any]] | None = None,
            extensions: dict[str, dict[str, Any]] | None = None,
        ) -> Any:
            options = notification_options or NotificationOptions()
            options.tools_changed = True
            return original(options, experimental_capabilities, extensions)

        with_tools_changed._statekit_gate = True  # type: ignore[attr-defined]
        setattr(lowlevel, "create_initialization_options", with_tools_changed)  # noqa: B010

    def _input_schema_of(self, name: str) -> Mapping[str, Any] | None:
        gate_tool = self._tools.get(name)
        if gate_tool is None:
            return None
        return self.handle_schema(name, dict(gate_tool.tool.input_schema))

    # ------------------------------------------------------------------ views

    def is_visible(self, tool_name: str, snapshot: Any) -> bool:
        """True when `tool_name` is allowed while the workflow is at `snapshot` (None: no workflow)."""
        binding = self._bindings.get(tool_name)
        if binding is None or not binding.is_state_bound:
            return True
        return tool_name in self._bound_visible(snapshot)

    def _bound_visible(self, snapshot: Any) -> frozenset[str]:
        """The state-bound tools visible at `snapshot`, memoised per state value."""
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

    @property
    def listen_handler(self) -> KeyedListenHandler:
        """The `subscriptions/listen` handler this gate (and the others on its server) publish to."""
        return self._listen

    def binds(self, tool_name: str) -> bool:
        """True when this gate gates (or serves) `tool_name`."""
        return tool_name in self._bindings

    def needs_handle(self, tool_name: str) -> bool:
        """Handle mode: True for the tools whose calls must carry the handle."""
        if self.mode != "handle" or tool_name in self._creators:
            return False
        binding = self._bindings.get(tool_name)
        return binding is not None and (binding.is_state_bound or binding.event is not None)

    def handle_schema(self, tool_name: str, schema: dict[str, Any]) -> dict[str, Any]:
        """`schema` with the handle parameter the gate owns added (required), for tools that need it."""
        optional = (
            self.mode == "handle"
            and tool_name in self._bindings
            and tool_name not in self._creators
        )
        if not self.needs_handle(tool_name) and not optional:
            return schema
        key = self.state_handle_key
        assert key is not None
        properties = dict(schema.get("properties") or {})
        creators = " or ".join(sorted(self._creators))
        properties[key] = {
            "type": "string",
            "description": f"The workflow handle returned by {creators}."
            if self.needs_handle(tool_name)
            else f"Optional: the workflow handle returned by {creators}, to see its state.",
        }
        required = [name for name in schema.get("required", []) if name != key]
        if self.needs_handle(tool_name):
            required.append(key)
        updated = {**schema, "properties": properties}
        if required:
            updated["required"] = required
        return updated

    def handle_description(self, tool_name: str, description: str | None) -> str | None:
        """The description handle mode lists: the tool's own plus where it applies."""
        binding = self._bindings.get(tool_name)
        if not self.needs_handle(tool_name) or binding is None or not binding.is_state_bound:
            return description
        where = f"Allowed only while the workflow is in: {', '.join(binding.state_paths)}."
        return f"{description or ''} {where}".strip()

    def compact_description(self, tool_name: str) -> str | None:
        """The description listed while the workflow is in its initial state, if one was given."""
        return self._compact.get(tool_name)

    def creates_workflows(self, tool_name: str) -> bool:
        """Handle mode: True for the tools that start a new workflow (`creates_handle=True`)."""
        return tool_name in self._creators

    def decode_record(self, store_key: str, text: str) -> Record:
        """A stored record's text as a `Record` (raises `CorruptRecord`)."""
        return self._decoder.decode(store_key, text)

    def store_key(self, key: WorkflowKey) -> str:
        """Where `key`'s record lives in the store."""
        return self.namespace + key.store_key

    # ------------------------------------------------------------------ bindings vs. the server

    def check_listed(self, listed: Iterable[str]) -> str | None:
        """Compare the bindings with the names the server lists; returns the problem, if any.

        Bound names the server never lists would gate nothing (a typo leaves the real tool
        ungated), so until every one of them is listed, every gated call is refused. Names
        accumulate over listings, so a server that hides some tools from some callers is
        checked once every bound name has been listed to someone.
        """
        if self._bindings_checked:
            return None
        self._listed_names.update(listed)
        names = self._listed_names | set(self._tools)
        missing = sorted(name for name in self._bindings if name not in names)
        if not missing:
            self._bindings_checked = True
            if self._config_problem is not None:
                logger.warning(
                    "statekit.gate: bindings of %s now match the server", self.workflow_id
                )
            self._config_problem = None
            return None
        problem = (
            f"workflow {self.workflow_id!r} binds {missing}, which the server does not list "
            f"(it lists {sorted(names)}); fix the names passed to gate.bind"
        )
        if self._config_problem != problem:
            logger.error("statekit.gate: %s", problem)
        self._config_problem = problem
        return problem

    def _misconfigured(self) -> types.CallToolResult:
        return refusal(
            GATE_MISCONFIGURED,
            f"The server's workflow gate is misconfigured, so every gated call is refused: "
            f"{self._config_problem}.",
            state=None,
            allowed_tools=[],
        )

    # ------------------------------------------------------------------ state

    async def _notify_fired(self, ctx: Any, key: WorkflowKey, loaded: _Loaded) -> None:
        if not loaded.fired:
            return
        for fired in loaded.fired:
            await self._run_hooks(
                TransitionInfo(
                    self.store_key(key),
                    fired.source,
                    fired.target,
                    fired.event,
                    None,
                    f"{self.store_key(key)}#timer@{fired.due_at:.3f}",
                    self.clock(),
                )
            )
        if self.mode == "session" and self._bound_visible(loaded.before) != self._bound_visible(
            loaded.record.snapshot
        ):
            await self._notify_list_changed(ctx, key)

    async def _load(
        self, key: WorkflowKey, ctx: Any = None, *, holding_lock: bool = False
    ) -> _Loaded | None:
        """The key's record and version, with due timers fired; a key never saved starts at the initial state.

        Handles are the exception: they are minted by a creating tool, so an
        unknown one (guessed, mistyped or expired) is None, never a new workflow.
        Raises `StoreError` on a store fault or an unreadable record.
        """
        store_key = self.store_key(key)
        for _attempt in range(8):
            loaded = await self.store.load(store_key)
            if loaded is None:
                if key.kind == "handle":
                    return None
                if not self._initial_has_timers:
                    return _Loaded(self._initial_record(), None)
                # The initial state has `after` timers: they start counting now, so the
                # workflow must exist in the store from its first read.
                try:
                    text, record = self._encode(
                        self._initial_snapshot,
                        None,
                        0,
                        self._initial_json,
                        timers=apply_timer_actions((), self._initial_actions, self.clock()),
                        history=(),
                    )
                    version = await self.store.save(store_key, text, None)
                except StoreConflict:
                    continue
                self._decoder.remember(text, record)
                return _Loaded(record, version)
            text, version = loaded
            record = self._decoder.decode(store_key, text)
            due = record.next_due()
            now = self.clock()
            if due is None or due.due_at > now or record.active_lease(now) is not None:
                return _Loaded(record, version)
            if self._process_local_store and not holding_lock and self._locks.is_held(store_key):
                # A call of this process is moving the workflow without writing a lease
                # (the lock is its reservation): firing now would void its commit.
                return _Loaded(record, version)
            snapshot, timers, fired = fire_due(self.machine, record.snapshot, record.timers, now)
            history = list(record.history)
            step = record.step
            for item in fired:
                step += 1
                history.append(
                    AuditEntry(
                        item.source,
                        item.target,
                        item.event,
                        None,
                        f"{store_key}#{step}",
                        item.due_at,
                    )
                )
            try:
                text, new_record = self._encode(
                    snapshot, None, step, None, timers=timers, history=history
                )
                new_version = await self.store.save(store_key, text, version)
            except StoreConflict:
                # Another process fired (or moved) it first: read what it wrote.
                continue
            self._decoder.remember(text, new_record)
            result = _Loaded(new_record, new_version, fired, record.snapshot)
            await self._notify_fired(ctx, key, result)
            return result
        raise StoreConflictLoop(store_key)

    def _initial_record(self) -> Record:
        return Record(self._initial_snapshot, "", None, self._initial_json)

    def _encode(
        self,
        snapshot: Any,
        lease: Lease | None,
        step: int,
        snapshot_json: str | None,
        *,
        timers: Sequence[Timer],
        history: Sequence[AuditEntry],
    ) -> tuple[str, Record]:
        kept = list(history)[-self.history_size :] if self.history_size else []
        return encode_record(
            snapshot, lease, step, snapshot_json, timers=timers, history=kept, now=self.clock()
        )

    async def snapshot_of(
        self, *, handle: str | None = None, key: WorkflowKey | None = None
    ) -> Any:
        """The stored snapshot of a handle (or any workflow key), or None."""
        if (handle is None) == (key is None):
            raise ValueError("pass exactly one of handle= or key=")
        loaded = await self._load(key or WorkflowKey("handle", handle or ""))
        return None if loaded is None else loaded.record.snapshot

    # ------------------------------------------------------------------ listing (any server kind)

    async def visible_names(self, ctx: Any, names: Sequence[str]) -> list[str]:
        """The `names` this gate lets the caller list now (session mode: by its workflow's state).

        Fails closed: without a workflow key, or when the state cannot be read, only the
        tools not bound to states are kept.
        """
        if self.mode == "handle":
            return list(names)
        try:
            key = self._keys.resolve_without_handle(ctx)
            loaded = await self._load(key, ctx)
        except (NoWorkflowKey, StoreError, StoreConflictLoop):
            return [name for name in names if not self._is_state_bound(name)]
        snapshot = None if loaded is None else loaded.record.snapshot
        return [name for name in names if self.is_visible(name, snapshot)]

    def _is_state_bound(self, name: str) -> bool:
        binding = self._bindings.get(name)
        return binding is not None and binding.is_state_bound

    async def filter_listing(self, ctx: Any, tools: Sequence[T], view: ToolView[T]) -> list[T]:
        """The tools the caller may list now, as this gate presents them.

        Raises `MCPError` (code `LIST_REFUSED_RPC_CODE`, `data.code` naming the fault) when
        the bindings do not match the server, or the workflow's state cannot be read.
        """
        if catalog_pass.get():
            return list(tools)
        problem = self.check_listed(view.name(tool) for tool in tools)
        if problem is not None:
            raise MCPError(
                LIST_REFUSED_RPC_CODE,
                f"GateConfigError: {problem}",
                {"code": GATE_MISCONFIGURED, "retryable": False},
            )
        if self.mode == "handle":
            # 2026-07-28: the list must not vary per connection; the handle, not the list, carries state.
            return [
                view.replace(
                    tool,
                    schema=self.handle_schema(view.name(tool), view.schema(tool)),
                    description=self.handle_description(view.name(tool), view.description(tool)),
                )
                if view.name(tool) in self._bindings
                else tool
                for tool in tools
            ]
        try:
            key = self._keys.resolve_without_handle(ctx)
        except NoWorkflowKey as error:
            # Once per gate at warning level: a misconfigured HTTP server would flood the log.
            level = logging.DEBUG if self._warned_no_key else logging.WARNING
            self._warned_no_key = True
            logger.log(level, "statekit.gate: listing only ungated tools: %s", error)
            return [tool for tool in tools if not self._is_state_bound(view.name(tool))]
        self._remember_session(ctx, key)
        try:
            loaded = await self._load(key, ctx)
        except StoreError as error:
            code = "CORRUPT_RECORD" if isinstance(error, CorruptRecord) else "STORE_UNAVAILABLE"
            raise MCPError(
                LIST_REFUSED_RPC_CODE,
                f"{code}: the state of workflow {self.store_key(key)!r} cannot be read "
                f"({error.reason})",
                {"code": code, "workflow": self.store_key(key), "retryable": error.retryable},
            ) from None
        except StoreConflictLoop:
            raise MCPError(
                LIST_REFUSED_RPC_CODE,
                f"CONFLICT: workflow {self.store_key(key)!r} is busy",
                {"code": CONFLICT, "workflow": self.store_key(key), "retryable": True},
            ) from None
        snapshot = None if loaded is None else loaded.record.snapshot
        initial = snapshot is not None and self._is_initial(snapshot)
        shown = []
        for tool in tools:
            name = view.name(tool)
            if not self.is_visible(name, snapshot):
                continue
            compact = self._compact.get(name) if initial else None
            shown.append(tool if compact is None else view.replace(tool, description=compact))
        return shown

    # ------------------------------------------------------------------ low-level tools/list

    async def list_tools(
        self, ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        """The `tools/list` handler."""
        tools, next_cursor = await self._catalog(ctx, params)
        shown = await self.filter_listing(ctx, tools, SDK_TOOLS)
        if self.mode == "handle" or catalog_pass.get():
            return types.ListToolsResult(tools=shown, next_cursor=next_cursor)
        return types.ListToolsResult(
            tools=shown, next_cursor=next_cursor, ttl_ms=0, cache_scope="private"
        )

    async def _catalog(
        self, ctx: Any, params: Any, *, unfiltered: bool = False
    ) -> tuple[list[types.Tool], str | None]:
        """Every tool the server offers (gate tools, then the wrapped handler's), unfiltered by this gate.

        `unfiltered`: the other gates wrapped inside this one let everything through too
        (`allowed_now` applies every gate's filter itself).
        """
        cursor = getattr(params, "cursor", None)
        tools = [] if cursor else [gate_tool.tool for gate_tool in self._tools.values()]
        next_cursor: str | None = None
        if self._inner_list is not None:
            token = catalog_pass.set(unfiltered or catalog_pass.get())
            try:
                inner = await self._inner_list(ctx, params)
            finally:
                catalog_pass.reset(token)
            tools.extend(inner.tools)
            next_cursor = inner.next_cursor
        return tools, next_cursor

    async def catalog_names(self, ctx: Any) -> list[str]:
        """SDK servers: the names of every tool the caller can list, before any gate's state filter."""
        return await self._catalog_names(ctx)

    async def _catalog_names(self, ctx: Any) -> list[str]:
        tools, _ = await self._catalog(ctx, None, unfiltered=True)
        return [tool.name for tool in tools]

    # ------------------------------------------------------------------ low-level tools/call

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        """The `tools/call` handler."""
        name = params.name
        gate_tool = self._tools.get(name)
        arguments = dict(params.arguments or {})
        if gate_tool is None and name not in self._bindings:
            if self._inner_call is not None:
                return await self._inner_call(ctx, params)
            return error_result(f"Unknown tool: {name}")

        async def run(call: GateCall, stripped: dict[str, Any]) -> Any:
            if gate_tool is not None:
                return await self._run_gate_tool(gate_tool, call)
            assert self._inner_call is not None
            inner_params = params.model_copy(update={"arguments": stripped})
            return await self._inner_call(ctx, inner_params)

        return await self.guard(
            ctx, name, arguments, Catalog(lambda: self._catalog_names(ctx)), run, _SDK
        )

    @staticmethod
    async def _run_gate_tool(gate_tool: _GateTool, call: GateCall) -> types.CallToolResult:
        try:
            return to_call_result(await gate_tool.handler(call.arguments, call))
        except Exception as error:  # the tool boundary: a raising handler is an isError result
            logger.exception("statekit.gate: tool %s raised", call.tool)
            return error_result(f"Error executing tool {call.tool}: {error}")

    # ------------------------------------------------------------------ the guard (any server kind)

    async def guard(
        self,
        ctx: Any,
        name: str,
        arguments: dict[str, Any],
        catalog: Catalog,
        run: Callable[[GateCall, dict[str, Any]], Awaitable[Any]],
        surface: Surface,
    ) -> Any:
        """Check, run and commit one call of a tool this gate binds.

        `run(call, arguments)` runs the tool with the handle argument taken out (the gate
        owns it) and `call` visible through `current_call()`.
        """
        binding = self._bindings[name]
        if not self._bindings_checked:
            self.check_listed(await catalog.get())
        if self._config_problem is not None:
            return surface.refusal(self._misconfigured())
        stripped = dict(arguments)
        handle = None
        if self.state_handle_key is not None:
            handle = self._keys.handle_from(arguments)
            stripped.pop(self.state_handle_key, None)
        if name in self._creators:
            return await self._create_workflow(
                ctx, name, arguments, stripped, binding, catalog, run, surface
            )
        gated = binding.is_state_bound or binding.event is not None
        try:
            if self.mode == "handle":
                if handle is None:
                    if gated:
                        return surface.refusal(self._handle_required(name, arguments))
                    key = None
                else:
                    key = WorkflowKey("handle", handle)
            else:
                key = self._keys.resolve_without_handle(ctx)
        except NoWorkflowKey as error:
            if not gated:
                # An always-visible tool needs no workflow: it runs, seeing none.
                call = GateCall(name, arguments, "", None, None, ctx)
                return await run_with_call(call, lambda: run(call, stripped))
            return surface.refusal(
                refusal(
                    NO_WORKFLOW_KEY,
                    f"Tool {name!r} refused: {error}",
                    state=None,
                    allowed_tools=[],
                    details={"blockedTool": name},
                )
            )
        if key is None:
            # An ungated tool called without a handle: no workflow worth reporting.
            call = GateCall(name, arguments, "", None, None, ctx)
            return await run_with_call(call, lambda: run(call, stripped))
        self._remember_session(ctx, key)
        if not gated:
            return await self._ungated(
                ctx, name, arguments, stripped, key, handle, catalog, run, surface
            )
        async with self._locks.hold(self.store_key(key)):
            try:
                return await self._gated(
                    ctx, name, arguments, stripped, key, handle, binding, catalog, run, surface
                )
            except StoreError as error:
                return surface.refusal(store_fault(error, self.store_key(key)))
            except StoreConflictLoop:
                return surface.refusal(self._busy(name, None, []))

    def _handle_required(self, name: str, arguments: Mapping[str, Any]) -> types.CallToolResult:
        given = arguments.get(self.state_handle_key or "")
        what = "no" if given is None else f"an invalid ({type(given).__name__})"
        return refusal(
            HANDLE_REQUIRED,
            f"Tool {name!r} needs the workflow handle {self.state_handle_key!r} and the call "
            f"passed {what} one; call {' or '.join(sorted(self._creators))} to start a "
            f"workflow and pass its {self.state_handle_key}.",
            state=None,
            allowed_tools=sorted(self._creators),
            details={"blockedTool": name},
        )

    def _busy(self, name: str, state: Any, allowed: list[str]) -> types.CallToolResult:
        return refusal(
            CONFLICT,
            "The workflow changed while this call was being checked (a concurrent call won); "
            "list the tools again before retrying.",
            state=state,
            allowed_tools=allowed,
            details={"blockedTool": name},
        )

    async def _ungated(
        self,
        ctx: Any,
        name: str,
        arguments: dict[str, Any],
        stripped: dict[str, Any],
        key: WorkflowKey,
        handle: str | None,
        catalog: Catalog,
        run: Callable[[GateCall, dict[str, Any]], Awaitable[Any]],
        surface: Surface,
    ) -> Any:
        """An always-visible tool: no lock, no check, but it sees (and reports) the state."""
        try:
            loaded = await self._load(key, ctx)
        except (StoreError, StoreConflictLoop):
            loaded = None  # an always-visible tool does not depend on the state
        snapshot = None if loaded is None else loaded.record.snapshot
        call = GateCall(name, arguments, self.store_key(key), snapshot, handle, ctx)
        result = await run_with_call(call, lambda: run(call, stripped))
        if snapshot is None or not self.state_note or name == self.status_tool:
            return result
        allowed = await self.allowed_now(ctx, snapshot, catalog)
        return surface.note(
            result,
            state=snapshot.value,
            allowed=allowed,
            handle_argument=self.state_handle_key,
            handle=handle,
        )

    async def _gated(
        self,
        ctx: Any,
        name: str,
        arguments: dict[str, Any],
        stripped: dict[str, Any],
        key: WorkflowKey,
        handle: str | None,
        binding: Binding,
        catalog: Catalog,
        run: Callable[[GateCall, dict[str, Any]], Awaitable[Any]],
        surface: Surface,
    ) -> Any:
        store_key = self.store_key(key)
        loaded = await self._load(key, ctx, holding_lock=True)
        if loaded is None:
            return surface.refusal(
                refusal(
                    NOT_FOUND,
                    f"No workflow has {self.state_handle_key}={handle!r} (unknown or expired); "
                    f"call {' or '.join(sorted(self._creators))} to start one.",
                    state=None,
                    allowed_tools=await self.allowed_now(ctx, None, catalog),
                )
            )
        record, version = loaded.record, loaded.version
        snapshot = record.snapshot
        lease = record.active_lease(self.clock())
        if lease is not None:
            return surface.refusal(
                refusal(
                    CONFLICT,
                    f'Another call ("{lease.tool}") is moving this workflow right now; '
                    "retry after it finishes.",
                    state=snapshot.value,
                    allowed_tools=await self.allowed_now(ctx, snapshot, catalog),
                    details={"blockedTool": name},
                )
            )
        if not self.is_visible(name, snapshot):
            forbidden = refusal(
                FORBIDDEN,
                f'Tool "{name}" is not available in the current workflow state '
                f'"{state_label(snapshot.value)}".',
                state=snapshot.value,
                allowed_tools=await self.allowed_now(ctx, snapshot, catalog),
                details={"blockedTool": name},
            )
            return surface.refusal(
                await guided_refusal(self, forbidden, snapshot, record.timers, name, catalog)
            )
        event_type = binding.event
        transition_id = None if event_type is None else f"{store_key}#{record.step + 1}"
        call = GateCall(name, arguments, store_key, snapshot, handle, ctx, transition_id)
        if event_type is None:
            result = await run_with_call(call, lambda: run(call, stripped))
            if not self.state_note:
                return result
            return surface.note(
                result,
                state=snapshot.value,
                allowed=await self.allowed_now(ctx, snapshot, catalog),
                handle_argument=self.state_handle_key,
                handle=handle,
            )
        try:
            reserved_version = await self._reserve(store_key, record, version, name, event_type)
        except StoreConflict:
            return surface.refusal(
                self._busy(name, snapshot.value, await self.allowed_now(ctx, snapshot, catalog))
            )
        try:
            result = await run_with_call(call, lambda: run(call, stripped))
        except BaseException:
            # Shielded: a cancelled call must still drop its lease, or the workflow
            # stays blocked until the lease expires.
            with anyio.CancelScope(shield=True):
                await self._release(store_key, record, reserved_version)
            raise
        if not surface.is_success(result):
            await self._release(store_key, record, reserved_version)
            return result
        event = {
            **self._event_data.get(name, _default_event_data)(stripped, result),
            "type": event_type,
        }
        try:
            next_snapshot, actions = transition(self.machine, snapshot, event)
        except EngineError as error:
            # e.g. a guard raised. The handler ran; the workflow stays where it was.
            logger.exception("statekit.gate: event %s from %s failed", event_type, name)
            with anyio.CancelScope(shield=True):
                await self._release(store_key, record, reserved_version)
            return surface.refusal(
                error_result(
                    f'Tool "{name}" ran, but the workflow could not take event {event_type}: {error}'
                )
            )
        now = self.clock()
        timers = apply_timer_actions(record.timers, actions, now)
        assert transition_id is not None
        entry = AuditEntry(
            snapshot.value, next_snapshot.value, event_type, name, transition_id, now
        )
        try:
            # Shielded: the handler's side effect happened, so the transition must be
            # recorded even if the client cancels now; otherwise a later caller could
            # take over the expired lease and repeat the side effect.
            with anyio.CancelScope(shield=True):
                text, saved = self._encode(
                    next_snapshot,
                    None,
                    record.step + 1,
                    None,
                    timers=timers,
                    history=[*record.history, entry],
                )
                await self.store.save(store_key, text, reserved_version)
                self._decoder.remember(text, saved)
        except StoreConflict:
            logger.error(
                "statekit.gate: %s on %s ran but its lease expired before the commit; "
                "the workflow did not move (raise lease_seconds above the handler's duration)",
                name,
                store_key,
            )
            return surface.refusal(
                refusal(
                    CONFLICT,
                    f'Tool "{name}" ran, but the workflow was taken over before its transition was '
                    "saved; the state did not change.",
                    state=snapshot.value,
                    allowed_tools=await self.allowed_now(ctx, snapshot, catalog),
                )
            )
        except StoreError as error:
            logger.error(
                "statekit.gate: %s on %s ran but its commit failed: %s", name, store_key, error
            )
            return surface.refusal(
                refusal(
                    STORE_UNAVAILABLE,
                    f'Tool "{name}" ran, but its transition could not be saved ({error.reason}); '
                    f"the state did not change. Retry with the same transition id {transition_id}.",
                    state=snapshot.value,
                    allowed_tools=[],
                    details={
                        "workflow": store_key,
                        "retryable": True,
                        "transitionId": transition_id,
                    },
                )
            )
        await self._run_hooks(
            TransitionInfo(
                store_key, snapshot.value, next_snapshot.value, event_type, name, transition_id, now
            )
        )
        if self.mode == "session" and self._bound_visible(snapshot) != self._bound_visible(
            next_snapshot
        ):
            await self._notify_list_changed(ctx, key)
        if not self.state_note:
            return result
        return surface.note(
            result,
            state=next_snapshot.value,
            allowed=await self.allowed_now(ctx, next_snapshot, catalog),
            handle_argument=self.state_handle_key,
            handle=handle,
        )

    async def _reserve(
        self, store_key: str, record: Record, version: int | None, tool: str, event: str
    ) -> int | None:
        """Write a lease on the loaded version; raises `StoreConflict` if another caller got there first."""
        if self._process_local_store:
            # Nothing outside this process can write the store, and the per-key lock is
            # held until the commit: the lock is the reservation, and a write would add nothing.
            return version
        lease = Lease(secrets.token_hex(8), tool, event, self.clock() + self.lease_seconds)
        text, saved = self._encode(
            record.snapshot,
            lease,
            record.step,
            record.snapshot_json,
            timers=record.timers,
            history=record.history,
        )
        new_version = await self.store.save(store_key, text, version)
        self._decoder.remember(text, saved)
        return new_version

    async def _release(self, store_key: str, record: Record, reserved_version: int | None) -> None:
        """Drop this call's lease, leaving the snapshot as it was."""
        if self._process_local_store:
            return
        try:
            text, saved = self._encode(
                record.snapshot,
                None,
                record.step,
                record.snapshot_json,
                timers=record.timers,
                history=record.history,
            )
            await self.store.save(store_key, text, reserved_version)
            self._decoder.remember(text, saved)
        except StoreConflict:
            logger.warning("statekit.gate: lease on %s expired before it was released", store_key)
        except StoreError as error:
            logger.error(
                "statekit.gate: could not release the lease on %s (%s); it expires by itself",
                store_key,
                error,
            )

    async def _create_workflow(
        self,
        ctx: Any,
        name: str,
        arguments: dict[str, Any],
        stripped: dict[str, Any],
        binding: Binding,
        catalog: Catalog,
        run: Callable[[GateCall, dict[str, Any]], Awaitable[Any]],
        surface: Surface,
    ) -> Any:
        """Run a creating tool: mint a handle, and store the new workflow if the handler succeeds."""
        handle = self._handle_factory()
        key = WorkflowKey("handle", handle)
        store_key = self.store_key(key)
        call = GateCall(
            name, arguments, store_key, self._initial_snapshot, handle, ctx, f"{store_key}#0"
        )
        result = await run_with_call(call, lambda: run(call, stripped))
        if not surface.is_success(result):
            return result
        now = self.clock()
        snapshot = self._initial_snapshot
        timers = apply_timer_actions((), self._initial_actions, now)
        history: list[AuditEntry] = []
        step = 0
        if binding.event is not None:
            event_data = self._event_data.get(name, _default_event_data)
            event = {**event_data(stripped, result), "type": binding.event}
            before = snapshot.value
            snapshot, actions = transition(self.machine, snapshot, event)
            timers = apply_timer_actions(timers, actions, now)
            step = 1
            history.append(
                AuditEntry(before, snapshot.value, binding.event, name, f"{store_key}#1", now)
            )
        # A fresh random handle: nobody else can be writing it, so "absent" is the expected version.
        try:
            text, saved = self._encode(snapshot, None, step, None, timers=timers, history=history)
            await self.store.save(store_key, text, None)
            self._decoder.remember(text, saved)
        except (StoreError, StoreConflict) as error:
            logger.error("statekit.gate: could not store the new workflow %s: %s", store_key, error)
            fault = error if isinstance(error, StoreError) else StoreError(store_key, str(error))
            return surface.refusal(store_fault(fault, store_key))
        if not self.state_note:
            return result
        allowed = await self.allowed_now(ctx, snapshot, catalog)
        return surface.note(
            result,
            state=snapshot.value,
            allowed=allowed,
            handle_argument=self.state_handle_key,
            handle=handle,
        )

    # ------------------------------------------------------------------ allowed tools, notifications

    async def allowed_now(self, ctx: Any, snapshot: Any, catalog: Catalog) -> list[str]:
        """The tools callable at `snapshot`: the caller's catalog, filtered by this gate and the others."""
        names = [name for name in await catalog.get() if self.is_visible(name, snapshot)]
        return await self._group_filter(ctx, names)

    async def _group_filter(self, ctx: Any, names: list[str]) -> list[str]:
        for other in self._group:
            if other is not self:
                names = await other.visible_names(ctx, names)
        return names

    def _remember_session(self, ctx: Any, key: WorkflowKey) -> None:
        if self.mode != "session" or is_modern(ctx):
            return
        session = getattr(ctx, "session", None)
        if session is None:
            return
        store_key = self.store_key(key)
        sessions = self._sessions.setdefault(store_key, {})
        self._sessions.move_to_end(store_key)
        # The SDK builds one session proxy per request; keep the latest per connection.
        sessions[id(getattr(session, "_connection", session))] = session
        while len(sessions) > _SESSIONS_PER_KEY:
            sessions.pop(next(iter(sessions)))
        while len(self._sessions) > _SESSION_KEYS:
            self._sessions.popitem(last=False)

    def _listen_key(self, ctx: Any) -> WorkflowKey:
        return _listen_identity(self._keys.resolve_without_handle(ctx))

    async def _notify_list_changed(self, ctx: Any, key: WorkflowKey) -> None:
        """Tell the clients of `key` that their tool list changed.

        Legacy: on the triggering request's stream when there is one, else on the
        standalone stream of every session seen for the key. 2026-07-28: on the key's
        listen streams, here and (through the relay) on other replicas.
        """
        try:
            if ctx is not None and not is_modern(ctx) and getattr(ctx, "session", None) is not None:
                await ctx.session.send_notification(
                    types.ToolListChangedNotification(), related_request_id=ctx.request_id
                )
            elif ctx is None:
                sessions = self._sessions.get(self.store_key(key), {})
                for connection, session in list(sessions.items()):
                    try:
                        await session.send_tool_list_changed()
                    except Exception:  # a closed session: nothing to tell, forget it
                        sessions.pop(connection, None)
            await self._listen.publish_tools_changed(_listen_identity(key))
        except Exception:  # a lost notification must not fail a call that already committed
            logger.exception("statekit.gate: could not send tools/list_changed")

    async def _run_hooks(self, info: TransitionInfo) -> None:
        await run_hooks(self._hooks, info)

    # ------------------------------------------------------------------ timers

    async def fire_due_timers(self) -> int:
        """Fire every due `after` timer in the store (one pass); returns how many workflows moved.

        Needs a store that can list its keys (`ScanStore`: all shipped stores). Safe to
        run in every replica at once: each firing is a compare-and-set.
        """
        keys = getattr(self.store, "keys", None)
        if keys is None:
            raise GateConfigError(
                f"{type(self.store).__name__} cannot list its keys, so timers fire only when "
                "their workflow is read"
            )
        moved = 0
        async for store_key in keys(self.namespace):
            try:
                key = WorkflowKey.parse(store_key[len(self.namespace) :])
            except ValueError:
                continue
            try:
                async with self._locks.hold(store_key):
                    loaded = await self._load(key, None, holding_lock=True)
            except (StoreError, StoreConflictLoop) as error:
                logger.warning("statekit.gate: timers of %s not fired: %s", store_key, error)
                continue
            if loaded is not None and loaded.fired:
                moved += 1
        return moved

    async def run_timers(self, interval: float = 1.0) -> None:
        """Fire due timers every `interval` seconds until cancelled (run it as a background task)."""
        if interval <= 0:
            raise GateConfigError("interval must be positive")
        while True:
            try:
                await self.fire_due_timers()
            except GateConfigError:
                raise
            except Exception:  # the sweeper must outlive one bad pass (e.g. Redis restarting)
                if _being_cancelled():
                    # A store client can turn our cancellation into its own error (redis-py's
                    # asyncio connections do); swallowing it would keep the sweeper alive for ever.
                    raise asyncio.CancelledError from None
                logger.exception("statekit.gate: timer sweep failed")
            if _being_cancelled():
                # The cancel landed inside a pass and was absorbed there (a shielded store write,
                # a store client's own handler): honour it now instead of sleeping again.
                raise asyncio.CancelledError
            await anyio.sleep(interval)

    def sweeping(self, app: Any, *, interval: float = 1.0) -> Any:
        """Wrap an ASGI app so the gate's timer sweeper runs for the app's lifetime.

        `uvicorn.run(gate.sweeping(server.streamable_http_app()))`: the sweeper starts at
        ASGI lifespan startup (in every worker process; each firing is a compare-and-set,
        so several sweepers never fire a timer twice) and stops at shutdown.
        """

        async def with_sweeper(scope: Any, receive: Any, send: Any) -> None:
            if scope.get("type") != "lifespan":
                await app(scope, receive, send)
                return
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(self.run_timers, interval)
                try:
                    await app(scope, receive, send)
                finally:
                    tasks.cancel_scope.cancel()

        return with_sweeper

    # ------------------------------------------------------------------ introspection

    def bindings(self) -> Sequence[Binding]:
        """Every binding, in registration order."""
        return list(self._bindings.values())

    @property
    def admin(self) -> Any:
        """The admin API on this gate's store (`GateAdmin`)."""
        from statekit.gate.admin import GateAdmin

        return GateAdmin(self)


def _group_listen_key(group: Sequence[Gate], ctx: Any) -> WorkflowKey:
    """The listen identity of a request: the first session-mode gate that can key it."""
    problem = "no gate on this server keys workflows by session"
    for gate in group:
        if gate.mode != "session":
            continue
        try:
            return gate._listen_key(ctx)
        except NoWorkflowKey as error:
            problem = str(error)
    raise MCPError(
        LIST_REFUSED_RPC_CODE,
        f"{NO_WORKFLOW_KEY}: {problem}",
        {"code": NO_WORKFLOW_KEY, "retryable": False},
    )


def _listen_identity(key: WorkflowKey) -> WorkflowKey:
    """Who a listen stream belongs to: every gate's fallback workflow is the same (keyless) client."""
    return WorkflowKey("server", "*") if key.kind == "server" else key


def _being_cancelled() -> bool:
    """Whether the current asyncio task has been asked to stop (a pending `cancel()`)."""
    try:
        task = asyncio.current_task()
    except RuntimeError:  # not under asyncio
        return False
    return task is not None and task.cancelling() > 0
