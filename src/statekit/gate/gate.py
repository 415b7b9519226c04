"""`Gate`: bind an MCP server's tools to the states of an XState v5 workflow.

A gated tool is listed and callable only while the workflow is in one of its
states; a successful call fires its event. `Gate.install(server)` wires the gate
into an SDK low-level `Server`, an `MCPServer` (through their `tools/list`,
`tools/call` and `subscriptions/listen` handlers) or a FastMCP 4.x server
(through a FastMCP middleware, see `statekit.gate.fastmcp_middleware`).

The gate fails closed: wherever it cannot tell that a call is allowed (no key
for the workflow, an unreadable record, a store outage, bindings that do not
match the server) it refuses with a coded, explained `isError` result and never
runs the handler. Where each part lives: `decision` (may a call run),
`pipeline` (a call from admission to commit), `listing` (`tools/list`), `state`
(records), `notices` (hooks, list_changed), `core` (configuration and bindings).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.subscriptions import SubscriptionBus
from mcp.shared.exceptions import MCPError

from statekit.gate.bindings import Binding
from statekit.gate.decision import Catalog
from statekit.gate.errors import (
    LIST_REFUSED_RPC_CODE,
    NO_WORKFLOW_KEY,
    GateConfigError,
)
from statekit.gate.keys import (
    NoWorkflowKey,
    WorkflowKey,
)
from statekit.gate.listen import KeyedListenHandler
from statekit.gate.listing import catalog_pass
from statekit.gate.pipeline import GateCallPipeline
from statekit.gate.store import (
    StoreConflictLoop,
    StoreError,
)
from statekit.gate.wayfinding import install_status_tool

__all__ = ["Catalog", "Gate", "catalog_pass"]


logger = logging.getLogger("statekit.gate")


class Gate(GateCallPipeline):
    """FSM state gating for one MCP server; see the module docstring and `docs/gate.md`."""

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
            self._world.assume_matched()
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


def _being_cancelled() -> bool:
    """Whether the current asyncio task has been asked to stop (a pending `cancel()`)."""
    try:
        task = asyncio.current_task()
    except RuntimeError:  # not under asyncio
        return False
    return task is not None and task.cancelling() > 0
