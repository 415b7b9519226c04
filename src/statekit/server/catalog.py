"""Turns registry `ToolSpec`s into the MCP tool catalog a server advertises.

Every client pays for `tools/list` on every turn, so the listing carries what a model needs to
call each tool right and no more (a budget test holds it to 25 KB, tests/server/test_tool_surface.py):

- the input schema as the pipeline checks it (stage 2 of `registry.run_call`), with shared
  definitions referenced from `$defs` rather than repeated;
- a summary of the output schema (`listed_output_schema`): the result's top-level fields and
  their types, a schema every result of the complete one also meets, so a client that checks
  results against it never refuses a good one. The complete schemas are the resource
  `statekit://reference/tool-schemas.json`;
- annotations without the hints MCP says mean nothing for a read-only tool (destructive and
  idempotent are "meaningful only when readOnlyHint == false").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import mcp_types as types

from statekit.tools.registry import JSONObject, ToolSpec

#: The schema keywords a top-level result field keeps in the listing: they say what the field is.
_KEPT_FIELD_KEYWORDS = ("type", "enum", "const")


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


def listed_output_schema(schema: Mapping[str, Any]) -> JSONObject:
    """The summary of an output schema the listing carries: the root's type, and for each
    top-level field only its type, enum and const.

    It only drops constraints, never adds one: a result that meets `schema` meets the summary.
    A field typed by `anyOf`/`oneOf` branches keeps the union of their types (or no type when a
    branch has none)."""
    listed: JSONObject = {"type": schema.get("type", "object")}
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        listed["properties"] = {name: _field_summary(field) for name, field in properties.items()}
    return listed


def _field_summary(field: Any) -> JSONObject:
    if not isinstance(field, Mapping):
        return {}
    summary = {key: field[key] for key in _KEPT_FIELD_KEYWORDS if key in field}
    if "type" not in summary:
        types_of = _branch_types(field)
        if types_of:
            summary["type"] = types_of[0] if len(types_of) == 1 else types_of
    return summary


def _branch_types(field: Mapping[str, Any]) -> list[str]:
    """The JSON types an `anyOf`/`oneOf` field may take, or [] when some branch is unconstrained."""
    branches = field.get("anyOf") or field.get("oneOf")
    if not isinstance(branches, list):
        return []
    found: list[str] = []
    for branch in branches:
        kind = branch.get("type") if isinstance(branch, Mapping) else None
        if kind is None:
            return []
        for name in kind if isinstance(kind, list) else [kind]:
            if name not in found:
                found.append(name)
    return found


def listed_annotations(spec: ToolSpec) -> types.ToolAnnotations:
    """The tool's annotations; a read-only tool leaves out the hints MCP gives no meaning to it."""
    hints = spec.annotations
    if hints.read_only:
        return types.ToolAnnotations(read_only_hint=True, open_world_hint=hints.open_world)
    return types.ToolAnnotations(
        read_only_hint=False,
        destructive_hint=hints.destructive,
        idempotent_hint=hints.idempotent,
        open_world_hint=hints.open_world,
    )


def to_mcp_tool(spec: ToolSpec) -> types.Tool:
    """The MCP description of one tool: its input schema, a summary of its output schema, its annotations."""
    return types.Tool(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        input_schema=dict(spec.input_schema),
        output_schema=listed_output_schema(spec.output_schema),
        annotations=listed_annotations(spec),
        _meta=dict(spec.meta) if spec.meta is not None else None,
    )


def list_tools_result(specs: Mapping[str, ToolSpec]) -> types.ListToolsResult:
    """The whole catalog as one page, in a deterministic (sorted) order."""
    return types.ListToolsResult(tools=[to_mcp_tool(specs[name]) for name in sorted(specs)])


def server_instructions(specs: Mapping[str, ToolSpec]) -> str:
    """The server's instructions, with every claim about the tools computed from the served ones:
    which tools change something (from their annotations), and how failures read."""
    changing = sorted(name for name, spec in specs.items() if not spec.annotations.read_only)
    parts = [
        "statekit tools work on statecharts: a `machine` is an XState config object or text in any format "
        "the tools read (the `machine` argument lists them).",
    ]
    if changing:
        parts.append(f"These tools change state: {', '.join(changing)}; every other tool only reads.")
    else:
        parts.append("Every tool only reads.")
    parts.append(
        "Results are structured content with a short text summary. A failure is an isError result whose "
        "text starts with a sentence saying what went wrong, and whose structured content carries a stable "
        "error code and the message. Every tool's complete schemas: resource statekit://reference/tool-schemas.json."
    )
    return " ".join(parts)
