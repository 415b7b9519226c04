"""A reference model of what the gate must allow, and a hypothesis state machine that holds the gate to it.

The model is small on purpose: it knows the served tool names, the bindings the gate accepted,
and the workflow's snapshot (moved with the engine, which is proven against XState elsewhere).
It answers one question per call, with the rules written out here rather than imported from
the gate:

* a binding that names a tool the server does not serve closes everything: no handler runs;
* otherwise a tool nobody bound runs (the server's own), a name nobody serves runs nothing;
* a bound tool runs iff it has no states, or one of its states is active;
* a run that succeeds fires the tool's event, and the workflow moves iff the engine says the
  event is enabled there (`snapshot.can`).

`GateMachine` draws a random workflow (`tests/machine_strategies.py`), random bindings
(typos, unknown states, empty state lists, tools bound twice), then random calls through a
real client on one server kind and one store, and checks after every call: the handler ran
iff the model allowed it, and every refusal carries a code from the gate's closed set.
"""

from __future__ import annotations

import itertools
import tempfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import mcp_types as types
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule
from mcp import Client
from mcp.server.lowlevel.server import Server
from mcp.server.mcpserver import MCPServer

import statekit
from machine_strategies import EVENTS, machine_configs
from statekit.errors import EngineError, StatekitError
from statekit.gate import Gate, GateConfigError, MemoryStore, RedisStore, SQLiteStore, StateStore

SERVED = ("t0", "t1", "t2")
#: Bound but never served: what a typo in `gate.bind` looks like.
TYPOS = ("t0_default", "aprove")
#: Called but neither served nor bound.
GHOSTS = ("ghost",)
GATE_CODES = frozenset(
    {
        "FORBIDDEN",
        "CONFLICT",
        "NOT_FOUND",
        "HANDLE_REQUIRED",
        "NO_WORKFLOW_KEY",
        "GATE_MISCONFIGURED",
        "STORE_UNAVAILABLE",
        "CORRUPT_RECORD",
    }
)
HANDLER_FAILED = "HANDLER-FAILED"
IMPLEMENTATIONS = statekit.setup(
    guards={
        "isReady": lambda args, params: True,
        "isLate": lambda args, params: False,
        "hasRole": lambda args, params: True,
    },
    actions={"log": lambda args, params: None, "save": lambda args, params: None},
)


@dataclass
class Model:
    """What the gate must allow (see the module docstring)."""

    served: frozenset[str]
    snapshot: Any
    #: name -> (state paths or None, event or None)
    bindings: dict[str, tuple[tuple[str, ...] | None, str | None]] = field(default_factory=dict)

    @property
    def world_matches(self) -> bool:
        return set(self.bindings) <= self.served

    def allows(self, name: str) -> bool:
        if not self.world_matches:
            return False
        if name not in self.bindings:
            return name in self.served
        states, _ = self.bindings[name]
        if states is None:
            return True
        # Being in a state is the engine's answer (XState's `snapshot.matches`).
        return any(self.snapshot.matches(path) for path in states)

    def ran(self, name: str, succeeded: bool) -> None:
        """A run of `name` finished: a success fires its event."""
        if not succeeded or name not in self.bindings:
            return
        _, event = self.bindings[name]
        if event is None:
            return
        try:
            if self.snapshot.can({"type": event}):
                self.snapshot, _ = statekit.transition(
                    self.snapshot.machine, self.snapshot, {"type": event}
                )
        except EngineError:
            pass  # the gate reports it; the workflow stays


def state_paths(config: dict[str, Any]) -> list[str]:
    """Every state's dotted path from the root."""
    found: list[str] = []

    def walk(node: dict[str, Any], path: tuple[str, ...]) -> None:
        for key, child in (node.get("states") or {}).items():
            found.append(".".join((*path, key)))
            walk(child, (*path, key))

    walk(config, ())
    return found


def bindings_for(config: dict[str, Any]) -> st.SearchStrategy[list[tuple[str, Any, str | None]]]:
    """Random `gate.bind` calls: real names and typos; states, unknown ones, empty lists; events."""
    paths = state_paths(config)
    states = st.one_of(
        st.none(),
        st.sampled_from(paths) if paths else st.none(),
        st.lists(st.sampled_from([*paths, "nowhere"]), min_size=0, max_size=2),
    )
    events = st.one_of(st.none(), st.sampled_from([*EVENTS, "task.done", "UNHANDLED"]))
    one = st.tuples(st.sampled_from(SERVED + TYPOS), states, events)
    return st.lists(one, max_size=4)


class Served:
    """One server of a kind with `SERVED` tools, each appending to `ran` and failing on request."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.ran: list[str] = []
        self.server = self._build()
        self._lowlevel = (
            self.server._mcp_server
            if kind == "fastmcp"
            else getattr(self.server, "_lowlevel_server", self.server)
        )
        self._bare = {
            method: self._lowlevel.get_request_handler(method)
            for method in ("tools/list", "tools/call")
        }
        self._bare_middleware = list(getattr(self.server, "middleware", []))

    def install(self, gate: Gate) -> None:
        """Install `gate` on the server as it was built: the previous example's gate taken off.

        Building a server and connecting a client per example would cost more than the
        example; the gate is what changes, so each example's gate gets the bare server.
        """
        for method, entry in self._bare.items():
            if entry is not None:
                self._lowlevel.add_request_handler(method, entry.params_type, entry.handler)
        if self.kind == "fastmcp":
            self.server.middleware[:] = self._bare_middleware
            self.server.__dict__.pop("_statekit_gates", None)
        else:
            self._lowlevel.__dict__.pop("_statekit_gates", None)
        gate.install(self.server)

    def _build(self) -> Any:
        ran = self.ran
        if self.kind == "fastmcp":
            from fastmcp import FastMCP

            fast = FastMCP("model")
            for name in SERVED:
                fast.tool(self._handler(name), name=name, description=f"{name}.")
            return fast
        if self.kind == "mcpserver":
            server = MCPServer("model")
            for name in SERVED:
                server.tool(name=name, description=f"{name}.")(self._handler(name))
            return server

        async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
            return types.ListToolsResult(
                tools=[
                    types.Tool(name=name, description=f"{name}.", input_schema={"type": "object"})
                    for name in SERVED
                ]
            )

        async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
            if params.name not in SERVED:
                return types.CallToolResult(
                    content=[types.TextContent(type="text", text="Unknown tool")], is_error=True
                )
            ran.append(params.name)
            failed = bool((params.arguments or {}).get("fail"))
            text = HANDLER_FAILED if failed else f"ran {params.name}"
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=text)], is_error=failed
            )

        return Server("model", on_list_tools=list_tools, on_call_tool=call_tool)

    def _handler(self, name: str) -> Callable[..., Any]:
        ran = self.ran

        def handler(fail: bool = False) -> Any:
            ran.append(name)
            if fail:
                if self.kind == "fastmcp":
                    from fastmcp.exceptions import ToolError

                    raise ToolError(HANDLER_FAILED)
                # An error result, not an exception: MCPServer spends ~0.7 s logging a traceback.
                return types.CallToolResult(
                    content=[types.TextContent(type="text", text=HANDLER_FAILED)], is_error=True
                )
            return f"ran {name}"

        return handler

    def client(self, era: str) -> Any:
        if self.kind == "fastmcp":
            from fastmcp import Client as FastMCPClient

            return FastMCPClient(self.server, mode="legacy" if era == "legacy" else "auto")
        target = self.server._mcp_server if self.kind == "fastmcp" else self.server
        return Client(target, mode=era)


async def call(client: Any, name: str, fail: bool) -> tuple[bool, Any, str]:
    """(is_error, structured content, text) of one `tools/call`, whatever the client."""
    arguments = {"fail": True} if fail else {}
    try:
        if isinstance(client, Client):
            # The raw request: `ClientSession.call_tool` re-lists after a success to validate it.
            request = types.CallToolRequest(
                params=types.CallToolRequestParams(name=name, arguments=arguments)
            )
            result = await client.session.send_request(request, types.CallToolResult)
        else:
            result = await client.call_tool_mcp(name, arguments)
    except Exception as error:  # an unknown tool may be a protocol error: nothing ran
        return True, None, str(error)
    text = " ".join(getattr(block, "text", "") for block in result.content)
    return bool(result.is_error), result.structured_content, text


class GateMachine(RuleBasedStateMachine):
    """Random workflows, bindings and calls on one server kind and one store, against `Model`.

    A run shares one server of its kind and one client per protocol era (`sessions`); each
    example installs its own gate on the bare server, with its own store namespace.
    """

    kind: ClassVar[str] = "lowlevel"
    store_kind: ClassVar[str] = "memory"
    portal: ClassVar[Any] = None
    served: ClassVar[Served]
    store: ClassVar[StateStore]
    #: era -> connected client
    sessions: ClassVar[dict[str, Any]]
    examples: ClassVar[itertools.count[int]] = itertools.count()

    def __init__(self) -> None:
        super().__init__()
        self.model: Model | None = None
        self.session: Any = None

    @initialize(
        config=machine_configs(max_depth=1),
        data=st.data(),
        era=st.sampled_from(["legacy", "2026-07-28"]),
    )
    def build(self, config: dict[str, Any], data: st.DataObject, era: str) -> None:
        try:
            machine = IMPLEMENTATIONS.create_machine(config, max_iterations=50)
            gate = Gate(
                machine,
                store=self.store,
                clock=lambda: 0.0,
                namespace=f"model{next(self.examples)}/",
            )
        except (StatekitError, EngineError):
            return  # not a workflow the engine accepts: nothing to gate
        model = Model(frozenset(SERVED), gate._initial_snapshot)
        for name, states, event in data.draw(bindings_for(config), label="bindings"):
            must_fail = name in model.bindings or (
                isinstance(states, list) and (not states or "nowhere" in states)
            )
            try:
                gate.bind(name, states, event)
            except GateConfigError:
                continue
            assert not must_fail, f"gate.bind({name!r}, {states!r}, {event!r}) was accepted"
            model.bindings[name] = (
                None
                if states is None
                else ((states,) if isinstance(states, str) else tuple(states)),
                event,
            )
        self.served.install(gate)
        self.model = model
        self.session = self.sessions[era]

    @precondition(lambda self: self.model is not None)
    @rule(
        name=st.sampled_from(SERVED + TYPOS + GHOSTS),
        fail=st.booleans(),
    )
    def call_a_tool(self, name: str, fail: bool) -> None:
        model = self.model
        assert model is not None
        allowed = model.allows(name)
        before = len(self.served.ran)
        is_error, payload, text = self.portal.call(call, self.session, name, fail)
        ran = self.served.ran[before:]
        assert ran == ([name] if allowed else []), (
            f"{name}: the model {'allows' if allowed else 'refuses'} it, the handler ran {ran}; "
            f"bindings {model.bindings}, state {model.snapshot.value}"
        )
        if allowed:
            assert is_error == fail, (name, fail, text)
            model.ran(name, succeeded=not fail)
        else:
            assert is_error, (name, text)
            if name in model.served or name in model.bindings or not model.world_matches:
                # A gate refusal (not the server's own "unknown tool"): coded.
                coded = isinstance(payload, dict) and payload.get("code") in GATE_CODES
                assert coded, f"{name}: refused without a gate code: {text}"


@contextmanager
def running(
    kind: str, store_kind: str, portal: Any, redis_url: str | None
) -> Iterator[type[GateMachine]]:
    """A `GateMachine` class for `kind` and `store_kind`, with its server, store and clients open."""
    served = Served(kind)

    async def open_store() -> StateStore:
        if store_kind == "sqlite":
            return SQLiteStore(tmp / "gate.db")
        if store_kind == "redis":
            assert redis_url is not None
            return RedisStore.from_url(redis_url)
        return MemoryStore()

    with tempfile.TemporaryDirectory() as tmp_name, ExitStack() as stack:
        tmp = Path(tmp_name)
        store = portal.call(open_store)
        stack.callback(portal.call, _close_store, store)
        # One task enters and exits each client (anyio's cancel scopes must not change task).
        sessions = {
            era: stack.enter_context(portal.wrap_async_context_manager(served.client(era)))
            for era in ("legacy", "2026-07-28")
        }
        yield type(
            f"Gate_{kind}_{store_kind}",
            (GateMachine,),
            {
                "kind": kind,
                "store_kind": store_kind,
                "portal": portal,
                "served": served,
                "store": store,
                "sessions": sessions,
            },
        )


async def _close_store(store: StateStore) -> None:
    closer = getattr(store, "aclose", None)
    if closer is not None:
        await closer()
        return
    close = getattr(store, "close", None)
    if close is not None:
        close()
