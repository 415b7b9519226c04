"""The gate's configuration: the workflow, the bindings, and the views the other parts read.

`Gate` is built in layers, each in its own module and each using only the layers below it:
`core` (configuration, bindings, views) < `notices` (transition hooks, list_changed) <
`state` (loading and saving records, timers firing on read) < `listing` (`tools/list`) <
`pipeline` (`tools/call`, after `decision` admits it) < `gate` (installation, the timer
sweeper, introspection).
"""

from __future__ import annotations

import inspect
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, cast

import mcp_types as types

from statekit.engine import Machine, create_machine, initial_transition
from statekit.gate.bindings import Binding, make_binding, reachable_state_ids
from statekit.gate.calls import GateCall
from statekit.gate.committed import CommittedRecords
from statekit.gate.decision import World
from statekit.gate.declare import declared_description
from statekit.gate.errors import (
    GateConfigError,
)
from statekit.gate.hooks import TransitionHook
from statekit.gate.keys import (
    KeyResolver,
    PrincipalResolver,
    WorkflowKey,
    authenticated_principal,
    is_modern,
)
from statekit.gate.listen import KeyedListenHandler
from statekit.gate.locks import KeyedLocks
from statekit.gate.properties import require_properties
from statekit.gate.record import (
    Record,
    RecordDecoder,
    snapshot_json_of,
)
from statekit.gate.relay import ListChangedRelay
from statekit.gate.store import (
    MemoryStore,
    StateStore,
)
from statekit.gate.timers import apply_timer_actions

if TYPE_CHECKING:
    from statekit.gate.gate import Gate

logger = logging.getLogger("statekit.gate")

GateMode = Literal["session", "handle"]
#: How session mode lists tools to 2026-07-28 clients: "static" (every tool, each declaring the
#: states it needs; the default, as the spec asks) or "by_state" (the opt-in per-principal list).
ModernList = Literal["static", "by_state"]
ToolHandler = Callable[[dict[str, Any], GateCall], Awaitable[Any]]
#: Builds the payload of the fired event from the call's arguments and its result.
EventData = Callable[[dict[str, Any], Any], Mapping[str, Any]]
RawHandler = Callable[[Any, Any], Awaitable[Any]]


@dataclass(frozen=True)
class GateTool:
    tool: types.Tool
    handler: ToolHandler
    creates_handle: bool


_VISIBILITY_CACHE_SIZE = 4096


def _value_key(value: Any) -> Any:
    """A hashable form of a snapshot value (`"a"` or `{"a": {"b": "c"}, ...}`)."""
    if isinstance(value, dict):
        return tuple(sorted((key, _value_key(child)) for key, child in value.items()))
    return value


def default_event_data(arguments: dict[str, Any], result: Any) -> Mapping[str, Any]:
    return {"arguments": arguments}


class GateCore:
    """The gate's configuration, bindings and views of them; `Gate` adds state, listing and calls."""

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
        modern_list: ModernList = "static",
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
        `modern_list` (session mode): "static" lists every tool to 2026-07-28 clients, each
        bound one declaring its states (`gate/declare.py`), and refuses on the call path, since
        the spec says the list "MUST NOT vary per-connection or as a side effect of other
        requests on the connection"; "by_state" departs from that sentence on purpose and lists
        a principal's tools by its workflow's state, as legacy sessions always are.
        """
        if mode not in ("session", "handle"):
            raise GateConfigError(f"mode must be 'session' or 'handle', not {mode!r}")
        if modern_list not in ("static", "by_state"):
            raise GateConfigError(
                f"modern_list must be 'static' or 'by_state', not {modern_list!r}"
            )
        if mode == "handle" and modern_list != "static":
            raise GateConfigError("modern_list='by_state' is a session-mode option")
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
        self.modern_list: ModernList = modern_list
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
        #: This process's last commit per workflow (shared stores): see gate/committed.py.
        self._committed = CommittedRecords()
        self._listen = KeyedListenHandler(self._listen_key, relay=list_changed_relay)
        self._reachable = reachable_state_ids(self.machine.model)
        self._bindings: dict[str, Binding] = {}
        self._creators: set[str] = set()
        self._compact: dict[str, str] = {}
        self._event_data: dict[str, EventData] = {}
        self._tools: dict[str, GateTool] = {}
        self._visible_by_value: dict[Any, frozenset[str]] = {}
        self._inner_list: RawHandler | None = None
        self._inner_call: RawHandler | None = None
        self._installed = False
        #: The bindings against the server's tools: while they do not match, no call runs.
        self._world = World(self.workflow_id)
        self._warned_no_key = False
        #: The other gates on the same server (composition: each filters the others' names).
        self._group: list[Gate] = [cast("Gate", self)]
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
            self._tools[tool_name] = GateTool(tool, handler, creates_handle)
            self._world.own.add(tool_name)
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
        self._world.bound.add(tool_name)
        if compact_description is not None:
            self._compact[tool_name] = compact_description
        if event_data is not None:
            self._event_data[tool_name] = event_data

    # ------------------------------------------------------------------ views
    def _input_schema_of(self, name: str) -> Mapping[str, Any] | None:
        gate_tool = self._tools.get(name)
        if gate_tool is None:
            return None
        return self.handle_schema(name, dict(gate_tool.tool.input_schema))

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
        if not self.needs_handle(tool_name):
            return description
        return declared_description(self._bindings.get(tool_name), description)

    def lists_statically(self, ctx: Any) -> bool:
        """True when `ctx`'s `tools/list` is the same for every caller and every state.

        Handle mode always; session mode for 2026-07-28 requests unless `modern_list="by_state"`.
        """
        return self.mode == "handle" or (is_modern(ctx) and self.modern_list == "static")

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

    def _listen_key(self, ctx: Any) -> WorkflowKey:
        return listen_identity(self._keys.resolve_without_handle(ctx))

    def _is_state_bound(self, name: str) -> bool:
        binding = self._bindings.get(name)
        return binding is not None and binding.is_state_bound


def listen_identity(key: WorkflowKey) -> WorkflowKey:
    """Who a listen stream belongs to: every gate's fallback workflow is the same (keyless) client."""
    return WorkflowKey("server", "*") if key.kind == "server" else key
