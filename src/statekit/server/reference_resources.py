"""The reference documents tool descriptions point to, served as MCP resources.

`statekit.tools.references` holds them (`statekit://reference/...`); this adds them to
`resources/list` and `resources/read`, next to any resources the server already serves (the
MCP Apps templates, a host's own), which keep answering for their URIs.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import INVALID_PARAMS

from statekit.tools import registry
from statekit.tools.references import REFERENCES, TOOL_SCHEMAS_URI, document
from statekit.tools.registry import ToolSpec


def referenced_uris(catalog: Mapping[str, ToolSpec]) -> list[str]:
    """The reference documents the served tools point to (their descriptions and input schemas),
    and the complete tool schemas when any built-in tool is served (the instructions point there)."""
    text = json.dumps([[spec.description, spec.input_schema] for spec in catalog.values()])
    uris = [uri for uri in REFERENCES if uri in text]
    if any(registry.is_builtin(spec) for spec in catalog.values()) and TOOL_SCHEMAS_URI not in uris:
        uris.append(TOOL_SCHEMAS_URI)
    return uris


def install_reference_resources(server: Server[Any], catalog: Mapping[str, ToolSpec]) -> list[str]:
    """Serve the reference documents the catalog points to; returns their URIs (empty: nothing changed)."""
    uris = referenced_uris(catalog)
    if not uris:
        return []
    ours = [types.Resource(uri=ref.uri, name=ref.uri.removeprefix("statekit://"), title=ref.title,
                           description=ref.description, mime_type=ref.mime_type)
            for ref in (REFERENCES[uri] for uri in uris)]
    previous_list = server.get_request_handler("resources/list")
    previous_read = server.get_request_handler("resources/read")

    async def list_resources(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams
    ) -> types.ListResourcesResult:
        mine = [resource.model_copy(deep=True) for resource in ours]
        if previous_list is None:
            return types.ListResourcesResult(resources=mine)
        theirs = types.ListResourcesResult.model_validate(await previous_list.handler(ctx, params), by_name=False)
        if theirs.next_cursor is not None:
            return theirs  # ours follow on the last page
        kept = [resource for resource in theirs.resources if resource.uri not in uris]
        return theirs.model_copy(update={"resources": kept + mine})

    async def read_resource(ctx: ServerRequestContext[Any, Any], params: types.ReadResourceRequestParams) -> Any:
        uri = str(params.uri)
        if uri in uris:
            content = types.TextResourceContents(uri=uri, mime_type=REFERENCES[uri].mime_type, text=document(uri))
            return types.ReadResourceResult(contents=[content])
        if previous_read is not None:
            return await previous_read.handler(ctx, params)
        raise MCPError(INVALID_PARAMS, f"unknown resource {uri[:100]!r}")

    server.add_request_handler("resources/list", types.PaginatedRequestParams, list_resources)
    server.add_request_handler("resources/read", types.ReadResourceRequestParams, read_resource)
    return uris
