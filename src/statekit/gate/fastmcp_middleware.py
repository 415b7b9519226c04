"""The gate on FastMCP 4.x, through FastMCP's own extension point: a middleware over list and call.

Because the gate is a middleware, refused calls and transitions travel through the rest
of the server's middleware chain (logging, rate limits, audit see them), mounted and
namespaced tools are gated by the names the server lists, and in handle mode the gate
owns the handle argument: it is added to the listed schema, taken out of the arguments
before FastMCP validates them against the tool's signature, and handed to the handler as
`statekit.gate.current_call().handle`.

fastmcp is imported only when a FastMCP server is installed (it is an optional dependency).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any

import mcp_types as types
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools.base import InputRequiredToolResult, Tool, ToolResult
from mcp.server.auth.middleware.auth_context import get_access_token

from statekit.gate.calls import GateCall
from statekit.gate.keys import is_http, is_modern
from statekit.gate.results import META_KEY, state_note

if TYPE_CHECKING:
    from statekit.gate.gate import Gate


class _FastMCPTools:
    def name(self, tool: Tool) -> str:
        return tool.name

    def schema(self, tool: Tool) -> dict[str, Any]:
        return dict(tool.parameters or {"type": "object", "properties": {}})

    def description(self, tool: Tool) -> str | None:
        return tool.description

    def meta(self, tool: Tool) -> dict[str, Any] | None:
        return None if tool.meta is None else dict(tool.meta)

    def replace(
        self,
        tool: Tool,
        *,
        schema: dict[str, Any] | None = None,
        description: str | None = None,
        meta: dict[str, Any] | None = None,
    ) -> Tool:
        update: dict[str, Any] = {}
        if schema is not None:
            update["parameters"] = schema
        if description is not None:
            update["description"] = description
        if meta is not None:
            update["meta"] = meta
        return tool.model_copy(update=update)


FASTMCP_TOOLS = _FastMCPTools()


class _FastMCPSurface:
    """FastMCP's `ToolResult` in place of the SDK's `CallToolResult`."""

    def refusal(self, result: types.CallToolResult) -> Any:
        return ToolResult(
            content=list(result.content),
            structured_content=result.structured_content,
            meta=dict(result.meta or {}),
            is_error=True,
        )

    def note(
        self,
        result: Any,
        *,
        state: Any,
        allowed: Sequence[str],
        handle_argument: str | None,
        handle: str | None,
    ) -> Any:
        if not self.is_success(result):
            return result
        text, gate_meta = state_note(
            state=state, allowed_tools=allowed, handle_argument=handle_argument, handle=handle
        )
        meta = dict(result.meta or {})
        meta[META_KEY] = gate_meta
        return ToolResult(
            content=[*result.content, text],
            structured_content=result.structured_content,
            meta=meta,
            is_error=False,
        )

    def is_success(self, result: Any) -> bool:
        # A guard tool asking for input (SEP-2322) is not a final success: nothing fires.
        return (
            isinstance(result, ToolResult)
            and not isinstance(result, InputRequiredToolResult)
            and not result.is_error
        )


FASTMCP_SURFACE = _FastMCPSurface()


def request_context(context: MiddlewareContext[Any]) -> Any:
    """The SDK request context behind a FastMCP middleware call (None for in-process calls)."""
    fastmcp_context = context.fastmcp_context
    if fastmcp_context is None:
        return None
    try:
        wrapper = fastmcp_context.request_context
    except RuntimeError:
        return None
    if wrapper is None:
        return None
    # FastMCP's documented escape hatch to the SDK's own context (its request_id keeps its type).
    return getattr(wrapper, "_srctx", wrapper)


#: How long one caller's catalog is reused (seconds). FastMCP builds a tool list through its
#: whole middleware and provider pipeline (about as long as a tool call itself), and the gate
#: needs the caller's catalog for the state note of every successful call.
CATALOG_TTL_SECONDS = 1.0
_CATALOG_CALLERS = 1024


class CallerCatalogs:
    """Each caller's catalog (the names it can list before any gate's state filter), reused briefly.

    A caller is one access token and, on legacy sessions, one connection (2026-07-28 over
    stdio or in-process: the process's one client), so what FastMCP's auth or a session's
    visibility hides from one caller is never named to another. A tool added or removed shows
    in the names within `CATALOG_TTL_SECONDS`. A request nothing identifies (2026-07-28 over
    HTTP without a token) fetches every time.
    """

    def __init__(
        self,
        fetch: Callable[[], Awaitable[list[str]]],
        *,
        ttl: float = CATALOG_TTL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._fetch = fetch
        self._ttl = ttl
        self._clock = clock
        self._by_caller: OrderedDict[Hashable, tuple[float, list[str]]] = OrderedDict()

    async def names(self, ctx: Any) -> list[str]:
        """The caller's catalog: the cached one if fresh, else fetched now."""
        caller = _caller(ctx)
        if caller is None or self._ttl <= 0:
            return await self._fetch()
        now = self._clock()
        cached = self._by_caller.get(caller)
        if cached is not None and now - cached[0] < self._ttl:
            self._by_caller.move_to_end(caller)
            return list(cached[1])
        names = await self._fetch()
        self._by_caller[caller] = (now, list(names))
        self._by_caller.move_to_end(caller)
        while len(self._by_caller) > _CATALOG_CALLERS:
            self._by_caller.popitem(last=False)
        return names


def _caller(ctx: Any) -> Hashable | None:
    """Who is calling, as far as what they can list goes: their access token, and (legacy) their connection."""
    token = get_access_token()
    credential = None if token is None else hash(token.token)
    if is_modern(ctx):
        # 2026-07-28 has no sessions (a new connection object per request). Over stdio or
        # in-process the process has one client; over HTTP an access token names the caller,
        # and without one nothing does (a filter on a request header could tell two apart).
        if credential is None and is_http(ctx):
            return None
        return "modern", credential
    session = getattr(ctx, "session", None)
    if session is None:
        return None
    return id(getattr(session, "_connection", session)), credential


class GateMiddleware(Middleware):
    """Filters `tools/list` and guards `tools/call` for one gate."""

    def __init__(self, gate: Gate, server: Any) -> None:
        self.gate = gate
        self.server = server
        self.catalogs = CallerCatalogs(self._fetch_catalog)

    async def _fetch_catalog(self) -> list[str]:
        from statekit.gate.listing import catalog_pass

        token = catalog_pass.set(True)
        try:
            return [tool.name for tool in await self.server.list_tools()]
        finally:
            catalog_pass.reset(token)

    async def on_list_tools(
        self,
        context: MiddlewareContext[types.ListToolsRequest],
        call_next: CallNext[types.ListToolsRequest, Sequence[Tool]],
    ) -> Sequence[Tool]:
        tools = list(await call_next(context))
        return await self.gate.filter_listing(request_context(context), tools, FASTMCP_TOOLS)

    async def on_call_tool(
        self,
        context: MiddlewareContext[types.CallToolRequestParams],
        call_next: CallNext[types.CallToolRequestParams, ToolResult],
    ) -> ToolResult:
        from statekit.gate.decision import Catalog

        params = context.message
        ctx = request_context(context)

        async def catalog() -> list[str]:
            return await self.catalogs.names(ctx)

        async def run(call: GateCall, stripped: dict[str, Any]) -> Any:
            if stripped == (params.arguments or {}):
                return await call_next(context)  # no handle to take out: nothing to copy
            message = params.model_copy(update={"arguments": stripped})
            return await call_next(context.copy(message=message))

        async def passthrough() -> ToolResult:
            return await call_next(context)

        # Every call, bound or not, is admitted by the gate's decision before it runs.
        result: ToolResult = await self.gate.handle_call(
            ctx,
            params.name,
            dict(params.arguments or {}),
            Catalog(catalog),
            run,
            passthrough,
            FASTMCP_SURFACE,
        )
        return result


def install_on_fastmcp(gate: Gate, server: Any) -> None:
    """Add the gate's middleware to `server` and serve `subscriptions/listen` for it (session mode)."""
    server.add_middleware(GateMiddleware(gate, server))
    gate.join_group(server)
    lowlevel = server._mcp_server
    if gate.mode == "session" and lowlevel.get_request_handler("subscriptions/listen") is None:
        # FastMCP 4.2 does not serve 2026-07-28 listen streams; the gate's keyed handler does.
        lowlevel.add_request_handler(
            "subscriptions/listen", types.SubscriptionsListenRequestParams, gate.listen_handler
        )
