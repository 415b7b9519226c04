"""The statekit MCP server: every registry tool served on the SDK's low-level `Server`.

The server is dual-era out of the box (the SDK answers `server/discover` for 2026-07-28
clients and `initialize` for 2025 clients on the same endpoint). What statekit adds here is
the catalog, the call pipeline (`calls.py`), cache hints for its static catalogs, and the
observer hook. No tool logic lives in this package.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from mcp.server.caching import CacheableMethod, CacheHint
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server

from statekit import __version__
from statekit.errors import ErrorCode
from statekit.hosted.provider import DEFAULT_CLIENT_ID
from statekit.server.access import request_principal
from statekit.server.app_resource import install_app_resources
from statekit.server.calls import ToolCaller, error_result
from statekit.server.catalog import list_tools_result, select_tools, server_instructions
from statekit.server.observer import ToolCallObserver
from statekit.server.reference_resources import install_reference_resources
from statekit.tools import registry
from statekit.tools.registry import DEFAULT_MAX_SOURCE_BYTES, ToolContext, ToolSpec
from statekit.tools.supervisor import Supervisor

SERVER_NAME = "statekit"
#: The catalogs never change while a server runs, so any client or shared cache may keep them
#: for five minutes (the spec's example value) instead of asking again.
CATALOG_CACHE_HINT = CacheHint(ttl_ms=300_000, scope="public")
CACHED_CATALOG_METHODS: tuple[CacheableMethod, ...] = (
    "server/discover",
    "tools/list",
    "resources/list",
    "resources/templates/list",
)
_MAX_CLIENT_ID_LENGTH = 128

#: The error codes the server layer itself produces (tools add their own): argument and size
#: checks, tool bugs and schema breaks, and the HTTP guards' refusals.
SERVER_ERROR_CODES: frozenset[ErrorCode] = frozenset(
    {
        "invalid_input",
        "input_too_large",
        "internal_error",
        "unauthenticated",
        "forbidden",
        "payload_too_large",
    }
)



@dataclass(frozen=True)
class ToolRegistration:
    """What `register_tools` put on a server: the served tools and the settings they run with."""

    tool_names: tuple[str, ...]
    max_source_bytes: int
    #: A channel label for any outbound analysis call; it carries no user or machine content.
    client_id: str


def create_server(
    *,
    tools: Iterable[str] | None = None,
    max_source_bytes: int = DEFAULT_MAX_SOURCE_BYTES,
    on_tool_call: ToolCallObserver | None = None,
    client_id: str = DEFAULT_CLIENT_ID,
    context: ToolContext | None = None,
    supervisor: Supervisor | None = None,
    in_process: bool = False,
) -> Server[Any]:
    """A low-level MCP `Server` serving the registry's tools (all of them, or the allowlist).

    `context` carries the host's resource provider, verification adapter and workspace root;
    by default they come from the environment (`ToolContext.from_environment`). Every call runs
    through `supervisor` (by default the process's shared one, `Supervisor.shared()`), which
    bounds its time and memory; `in_process=True` runs calls in server threads instead, with
    only the cooperative budget checks (for tests and hosts that isolate calls themselves).
    """
    if isinstance(tools, str):
        raise TypeError("tools must be an iterable of tool names, not one string")
    served = select_tools(registry.tools(), tools)
    server: Server[Any] = Server(
        SERVER_NAME,
        version=__version__,
        title="statekit",
        description="Statecharts for AI agents: an exact XState v5 engine and machine tools.",
        # Computed from the served tools' annotations, so it cannot claim what they do not do.
        instructions=server_instructions(served),
        cache_hints={method: CATALOG_CACHE_HINT for method in CACHED_CATALOG_METHODS},
    )
    register_tools(
        server,
        tools=list(served),
        on_tool_call=on_tool_call,
        max_source_bytes=max_source_bytes,
        client_id=client_id,
        context=context,
        supervisor=supervisor,
        in_process=in_process,
    )
    return server


def register_tools(
    server: Server[Any],
    *,
    tools: Iterable[str] | None = None,
    on_tool_call: ToolCallObserver | None = None,
    max_source_bytes: int = DEFAULT_MAX_SOURCE_BYTES,
    client_id: str = DEFAULT_CLIENT_ID,
    context: ToolContext | None = None,
    supervisor: Supervisor | None = None,
    in_process: bool = False,
) -> ToolRegistration:
    """Serve the registry's tools on `server`, next to any tools it already serves.

    `tools` is an allowlist of tool names (None serves every tool; an unknown name raises
    ValueError). A `tools/list` or `tools/call` handler already on the server keeps working:
    its tools are listed before statekit's, and calls to names statekit does not own go to it.
    `on_tool_call` receives a content-free event per call to a statekit tool. `supervisor` and
    `in_process` are as in `create_server`.
    """
    if isinstance(tools, str):
        raise TypeError("tools must be an iterable of tool names, not one string")
    if max_source_bytes <= 0:
        raise ValueError("max_source_bytes must be a positive number of bytes")
    _check_client_id(client_id)
    catalog = select_tools(registry.tools(), tools)
    if context is None:
        context = ToolContext.from_environment(client_id=client_id, max_source_bytes=max_source_bytes)
    else:
        context = dataclasses.replace(context, client_id=client_id, max_source_bytes=max_source_bytes)
    if in_process:
        supervisor = None
    elif supervisor is None:
        supervisor = Supervisor.shared()
    caller = ToolCaller(catalog=catalog, max_source_bytes=max_source_bytes, observer=on_tool_call, context=context,
                        supervisor=supervisor)
    _install_list_handler(server, catalog)
    _install_call_handler(server, catalog, caller)
    _install_schema_lookup(server, catalog)
    install_app_resources(server, catalog)  # MCP Apps: only when a served tool links a ui:// app
    install_reference_resources(server, catalog)  # what the tool descriptions point to (statekit://reference/...)
    return ToolRegistration(tuple(sorted(catalog)), max_source_bytes, client_id)


def _check_client_id(client_id: str) -> None:
    if not client_id or len(client_id) > _MAX_CLIENT_ID_LENGTH or not client_id.isprintable():
        raise ValueError(f"client_id must be 1-{_MAX_CLIENT_ID_LENGTH} printable characters")


def _install_list_handler(server: Server[Any], catalog: Mapping[str, ToolSpec]) -> None:
    ours = list_tools_result(catalog)
    previous = server.get_request_handler("tools/list")

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams
    ) -> types.ListToolsResult:
        if previous is None:
            # A fresh copy per request: the runner stamps cache hints onto what it is given.
            return ours.model_copy(deep=True)
        theirs = types.ListToolsResult.model_validate(
            await previous.handler(ctx, params), by_name=False
        )
        if theirs.next_cursor is not None:
            return theirs  # statekit's tools follow on the last page
        kept = [tool for tool in theirs.tools if tool.name not in catalog]
        return theirs.model_copy(
            update={"tools": kept + [tool.model_copy(deep=True) for tool in ours.tools]}
        )

    server.add_request_handler("tools/list", types.PaginatedRequestParams, list_tools)


def _install_call_handler(
    server: Server[Any], catalog: Mapping[str, ToolSpec], caller: ToolCaller
) -> None:
    previous = server.get_request_handler("tools/call")

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> Any:
        spec = catalog.get(params.name)
        if spec is not None:
            session = getattr(ctx, "session", None)
            progress = getattr(session, "report_progress", None)
            principal = request_principal(getattr(ctx, "request", None))
            return await caller.call(spec, params.arguments, params.meta, progress, principal=principal)
        if previous is not None:
            return await previous.handler(ctx, params)
        # Unknown names are not tool calls, so the observer is not told (the name is caller text).
        return error_result(registry.unknown_tool(params.name, catalog))

    server.add_request_handler("tools/call", types.CallToolRequestParams, call_tool)


def _install_schema_lookup(server: Server[Any], catalog: Mapping[str, ToolSpec]) -> None:
    # Lets the 2026-07-28 HTTP path check `Mcp-Param-*` headers without running tools/list.
    previous = server.get_tool_input_schema

    def input_schema(name: str) -> Mapping[str, Any] | None:
        spec = catalog.get(name)
        if spec is not None:
            return spec.input_schema
        return previous(name) if previous is not None else None

    server.get_tool_input_schema = input_schema
