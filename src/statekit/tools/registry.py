"""One registry of operations: name -> (input schema, function, output schema, annotations).

The Python API (`statekit.tools.call`), the CLI and the MCP server all go through this
registry, so the three faces can never drift apart.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from statekit.errors import ToolError

JSONObject = dict[str, Any]
ToolFunction = Callable[[JSONObject], JSONObject]

#: Default cap on the UTF-8 size of any source text a tool accepts (`maxSourceBytes`).
DEFAULT_MAX_SOURCE_BYTES = 1024 * 1024


@dataclass(frozen=True)
class ToolAnnotations:
    """MCP tool annotations; every statekit tool is read-only, non-destructive and idempotent."""

    read_only: bool = True
    destructive: bool = False
    idempotent: bool = True
    open_world: bool = False


@dataclass(frozen=True)
class ToolSpec:
    """One operation of the product surface."""

    name: str
    title: str
    description: str
    input_schema: JSONObject
    output_schema: JSONObject
    function: ToolFunction
    annotations: ToolAnnotations = field(default_factory=ToolAnnotations)
    #: Short text for the model, built from the structured result.
    summarize: Callable[[JSONObject], str] | None = None


@dataclass
class ToolContext:
    """Per-call settings that are not arguments (limits, providers); set by the caller."""

    max_source_bytes: int = DEFAULT_MAX_SOURCE_BYTES
    extras: dict[str, Any] = field(default_factory=dict)


_REGISTRY: dict[str, ToolSpec] = {}


def register(spec: ToolSpec) -> ToolSpec:
    """Add a tool; a second tool with the same name is a programming error."""
    if spec.name in _REGISTRY:
        raise ValueError(f"tool {spec.name!r} is already registered")
    _REGISTRY[spec.name] = spec
    return spec


def tools() -> Mapping[str, ToolSpec]:
    """Every registered tool, by name (importing the tool modules on first use)."""
    _load_builtin_tools()
    return dict(_REGISTRY)


def get(name: str) -> ToolSpec:
    """The tool called `name`, or `invalid_input` naming the known tools."""
    known = tools()
    if name not in known:
        raise ToolError("invalid_input", f"unknown tool {name!r}; known tools: {', '.join(sorted(known))}")
    return known[name]


def check_source_size(arguments: Mapping[str, Any], limit: int) -> None:
    """Raise `input_too_large` before any work when the arguments exceed `limit` UTF-8 bytes."""
    size = len(json.dumps(arguments, ensure_ascii=False, default=str).encode("utf-8"))
    if size > limit:
        raise ToolError(
            "input_too_large",
            f"input is {size} bytes, over the {limit}-byte limit (maxSourceBytes)",
            {"limit": limit, "size": size},
        )


def call(name: str, arguments: Mapping[str, Any] | None = None, *, max_source_bytes: int = DEFAULT_MAX_SOURCE_BYTES) -> JSONObject:
    """Run tool `name` on `arguments` and return its structured result; failures raise ToolError."""
    spec = get(name)
    args: JSONObject = dict(arguments or {})
    if not isinstance(arguments, Mapping) and arguments is not None:
        raise ToolError("invalid_input", "tool arguments must be a JSON object")
    check_source_size(args, max_source_bytes)
    try:
        return spec.function(args)
    except ToolError:
        raise
    except RecursionError:
        raise ToolError("input_too_large", "input nests too deeply to process") from None
    except Exception as exc:  # a bug in a tool: never leak the traceback to the caller
        raise ToolError("internal_error", f"{name} failed unexpectedly ({type(exc).__name__})") from exc


_LOADED = False


def _load_builtin_tools() -> None:
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    from statekit.tools import builtin  # noqa: F401  (imports register the tools)
