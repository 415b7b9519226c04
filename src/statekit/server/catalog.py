"""Turns registry `ToolSpec`s into the MCP tool catalog a server advertises."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import mcp_types as types

from statekit.tools.registry import ToolSpec


def select_tools(
    available: Mapping[str, ToolSpec], allowlist: Iterable[str] | None
) -> dict[str, ToolSpec]:
    """The tools to serve: all of them, or exactly the allowlisted ones (unknown names are an error)."""
    if allowlist is None:
        return dict(available)
    wanted = list(dict.fromkeys(allowlist))
    unknown = [name for name in wanted if name not in available]
    if unknown:
        raise ValueError(
            f"unknown tool(s) in the allowlist: {', '.join(unknown)}; "
            f"known tools: {', '.join(sorted(available)) or '(none)'}"
        )
    return {name: available[name] for name in wanted}


def to_mcp_tool(spec: ToolSpec) -> types.Tool:
    """The MCP description of one tool: schemas and annotations straight from its spec."""
    return types.Tool(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        input_schema=dict(spec.input_schema),
        output_schema=dict(spec.output_schema),
        annotations=types.ToolAnnotations(
            read_only_hint=spec.annotations.read_only,
            destructive_hint=spec.annotations.destructive,
            idempotent_hint=spec.annotations.idempotent,
            open_world_hint=spec.annotations.open_world,
        ),
        _meta=dict(spec.meta) if spec.meta is not None else None,
    )


def list_tools_result(specs: Mapping[str, ToolSpec]) -> types.ListToolsResult:
    """The whole catalog as one page, in a deterministic (sorted) order."""
    return types.ListToolsResult(tools=[to_mcp_tool(specs[name]) for name in sorted(specs)])
