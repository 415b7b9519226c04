"""`tools/list` through the gate, on any server kind, and the tools allowed now."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from contextvars import ContextVar
from typing import Any, TypeVar

import mcp_types as types
from mcp.shared.exceptions import MCPError

from statekit.gate.decision import Catalog
from statekit.gate.declare import declared_description, declared_meta
from statekit.gate.errors import (
    CONFLICT,
    GATE_MISCONFIGURED,
    LIST_REFUSED_RPC_CODE,
)
from statekit.gate.keys import (
    NoWorkflowKey,
)
from statekit.gate.state import GateState
from statekit.gate.store import (
    CorruptRecord,
    StoreConflictLoop,
    StoreError,
)
from statekit.gate.surfaces import SDK_TOOLS, ToolView

logger = logging.getLogger("statekit.gate")
T = TypeVar("T")

#: Set while a gate lists the server's catalog for itself (allowed tools), so that every
#: gate's list filter lets the catalog through unfiltered.
catalog_pass: ContextVar[bool] = ContextVar("statekit_gate_catalog_pass", default=False)


class GateListing(GateState):
    """What a caller may list, and what it may call now."""

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

    async def filter_listing(self, ctx: Any, tools: Sequence[T], view: ToolView[T]) -> list[T]:
        """The tools the caller may list now, as this gate presents them.

        Raises `MCPError` (code `LIST_REFUSED_RPC_CODE`, `data.code` naming the fault) when
        the bindings do not match the server, or the workflow's state cannot be read.
        """
        if catalog_pass.get():
            return list(tools)
        problem = self._world.observe(view.name(tool) for tool in tools)
        if problem is not None:
            raise MCPError(
                LIST_REFUSED_RPC_CODE,
                f"GateConfigError: {problem}",
                {"code": GATE_MISCONFIGURED, "retryable": False},
            )
        if self.lists_statically(ctx):
            # 2026-07-28: the list must not vary per connection nor as a side effect of calls;
            # each bound tool declares its states, and the call path refuses.
            return [self._declared(tool, view) for tool in tools]
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

    def _declared(self, tool: T, view: ToolView[T]) -> T:
        """`tool` as a static list shows it: with the states it needs (and the handle it takes)."""
        name = view.name(tool)
        binding = self._bindings.get(name)
        if binding is None:
            return tool
        return view.replace(
            tool,
            schema=self.handle_schema(name, view.schema(tool)),
            description=declared_description(binding, view.description(tool)),
            meta=declared_meta(binding, view.meta(tool)),
        )

    # ------------------------------------------------------------------ low-level tools/list

    async def list_tools(
        self, ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        """The `tools/list` handler."""
        tools, next_cursor = await self._catalog(ctx, params)
        shown = await self.filter_listing(ctx, tools, SDK_TOOLS)
        if self.lists_statically(ctx) or catalog_pass.get():
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
