"""MCP Apps (`io.modelcontextprotocol/ui`): the `ui://` resources that served tools link to.

A tool links its app through `ToolSpec.meta = {"ui": {"resourceUri": "ui://..."}}`. When any
served tool does, the server answers `resources/list` and `resources/read` for those URIs with
`text/html;profile=mcp-app` documents and advertises the extension in its capabilities. Servers
whose tools link no app are left exactly as they were (no resources capability at all).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import INVALID_PARAMS

from statekit.render.app import APP_DESCRIPTION, APP_TITLE, APP_URI, app_html
from statekit.tools.registry import ToolSpec

EXTENSION_ID = "io.modelcontextprotocol/ui"
APP_MIME_TYPE = "text/html;profile=mcp-app"

#: Every app statekit ships: URI -> (title, description, document builder).
KNOWN_APPS: Mapping[str, tuple[str, str, Callable[[], str]]] = {
    APP_URI: (APP_TITLE, APP_DESCRIPTION, app_html),
}
#: Resource `_meta.ui`: the document loads nothing from anywhere, so it needs no CSP domains.
RESOURCE_UI_META: dict[str, Any] = {"prefersBorder": True}


def linked_app_uris(catalog: Mapping[str, ToolSpec]) -> list[str]:
    """The `ui://` URIs the served tools link to, sorted (unknown URIs are a programming error)."""
    uris: set[str] = set()
    for spec in catalog.values():
        ui = (spec.meta or {}).get("ui")
        uri = ui.get("resourceUri") if isinstance(ui, dict) else None
        if uri is None:
            continue
        if uri not in KNOWN_APPS:
            raise ValueError(f"tool {spec.name} links {uri!r}, which statekit does not ship")
        uris.add(uri)
    return sorted(uris)


def install_app_resources(server: Server[Any], catalog: Mapping[str, ToolSpec]) -> list[str]:
    """Serve the apps the catalog links to; returns their URIs (empty: nothing was changed)."""
    uris = linked_app_uris(catalog)
    if not uris:
        return []
    server.extensions[EXTENSION_ID] = {}
    _install_list(server, uris)
    _install_read(server, uris)
    return uris


def _resource(uri: str) -> types.Resource:
    title, description, _ = KNOWN_APPS[uri]
    return types.Resource(
        uri=uri,
        name=uri.removeprefix("ui://"),
        title=title,
        description=description,
        mime_type=APP_MIME_TYPE,
        _meta={"ui": dict(RESOURCE_UI_META)},
    )


def _install_list(server: Server[Any], uris: list[str]) -> None:
    previous = server.get_request_handler("resources/list")
    ours = [_resource(uri) for uri in uris]

    async def list_resources(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams
    ) -> types.ListResourcesResult:
        mine = [resource.model_copy(deep=True) for resource in ours]
        if previous is None:
            return types.ListResourcesResult(resources=mine)
        theirs = types.ListResourcesResult.model_validate(
            await previous.handler(ctx, params), by_name=False
        )
        if theirs.next_cursor is not None:
            return theirs  # ours follow on the last page
        kept = [resource for resource in theirs.resources if resource.uri not in uris]
        return theirs.model_copy(update={"resources": kept + mine})

    server.add_request_handler("resources/list", types.PaginatedRequestParams, list_resources)


def _install_read(server: Server[Any], uris: list[str]) -> None:
    previous = server.get_request_handler("resources/read")
    # Built once: the documents are static for the life of the server.
    documents = {uri: KNOWN_APPS[uri][2]() for uri in uris}

    async def read_resource(
        ctx: ServerRequestContext[Any, Any], params: types.ReadResourceRequestParams
    ) -> Any:
        uri = str(params.uri)
        if uri in documents:
            content = types.TextResourceContents(
                uri=uri,
                mime_type=APP_MIME_TYPE,
                text=documents[uri],
                _meta={"ui": dict(RESOURCE_UI_META)},
            )
            return types.ReadResourceResult(contents=[content])
        if previous is not None:
            return await previous.handler(ctx, params)
        raise MCPError(INVALID_PARAMS, f"unknown resource {uri[:100]!r}")

    server.add_request_handler("resources/read", types.ReadResourceRequestParams, read_resource)
