"""One registry of operations: name -> (input schema, function, output schema, annotations).

The Python API (`statekit.tools.call`), the CLI and the MCP server all go through this
registry, so the three faces can never drift apart.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from statekit.errors import ToolError
from statekit.hosted.provider import DEFAULT_CLIENT_ID

JSONObject = dict[str, Any]
#: `function(arguments)`, or `function(arguments, context)` when `takes_context` is set.
ToolFunction = Callable[..., JSONObject]

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
    #: A result key holding MCP content blocks (e.g. `{"type": "image", "data", "mimeType"}`).
    #: The server sends them as native content after the text and leaves the key out of
    #: `structuredContent`, so the output schema never describes it; the Python API keeps it.
    content_key: str | None = None
    #: The tool's `_meta` in the MCP catalog (e.g. `{"ui": {"resourceUri": "ui://..."}}`).
    meta: JSONObject | None = None
    #: Whether `function` takes the call's `ToolContext` as a second argument.
    takes_context: bool = False
    #: Whether a failure is reported in the canonical resource envelope
    #: `{error: {code, message, issues?, retryable?}}` (the hosted resource tools) rather than flat.
    error_envelope: bool = False


@dataclass
class ToolContext:
    """Per-call settings that are not arguments: limits, the host's providers and adapters.

    The CLI and the Python API build one from the environment (`ToolContext.from_environment`);
    a server builds one at start-up and hands it to every call.
    """

    max_source_bytes: int = DEFAULT_MAX_SOURCE_BYTES
    #: Label for this process's outgoing HTTP calls; carries no user or machine content.
    client_id: str = DEFAULT_CLIENT_ID
    #: Where the hosted resource tools read projects and machines (None: capability disabled).
    resource_provider: Any = None
    #: The host's `execute_verification` adapter for `verify` (None: verification unavailable).
    verification_adapter: Any = None
    #: The root the workspace tools may read below.
    workspace_root: str = "."
    #: Where the server keeps what outlives a call (live machines): `memory://`, `sqlite:///path`, `redis://...`.
    store_url: str = "memory://"
    #: The live machine service on that store, made on first use (`statekit.tools.live_tools`).
    live_machines: Any = None
    extras: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_environment(cls, **overrides: Any) -> ToolContext:
        """The default context: providers configured from environment variables."""
        from statekit.hosted.config import provider_from_environment

        if "store_url" not in overrides and os.environ.get("STATEKIT_STORE"):
            overrides["store_url"] = os.environ["STATEKIT_STORE"]
        context = cls(**overrides)
        if "resource_provider" not in overrides:
            context.resource_provider = provider_from_environment(context.client_id)
        return context


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
    try:
        size = len(json.dumps(arguments, ensure_ascii=False, default=str).encode("utf-8"))
    except RecursionError:
        raise ToolError("input_too_large", "input nests too deeply to process") from None
    except UnicodeEncodeError:
        raise ToolError("invalid_input", "input contains text that is not valid Unicode (a lone surrogate)") from None
    except (TypeError, ValueError) as error:
        raise ToolError("invalid_input", f"input is not JSON data ({type(error).__name__})") from None
    if size > limit:
        raise ToolError(
            "input_too_large",
            f"input is {size} bytes, over the {limit}-byte limit (maxSourceBytes)",
            {"limit": limit, "size": size},
        )


_default_context: ToolContext | None = None


def default_context() -> ToolContext:
    """The context `call` uses when none is given (built once from the environment)."""
    global _default_context
    if _default_context is None:
        _default_context = ToolContext.from_environment()
    return _default_context


def call(
    name: str,
    arguments: Mapping[str, Any] | None = None,
    *,
    max_source_bytes: int | None = None,
    context: ToolContext | None = None,
    size_checked: bool = False,
) -> JSONObject:
    """Run tool `name` on `arguments` and return its structured result; failures raise ToolError.

    `size_checked` tells that the caller (the server) already applied the size limit.
    """
    spec = get(name)
    if not isinstance(arguments, Mapping) and arguments is not None:
        raise ToolError("invalid_input", "tool arguments must be a JSON object")
    args: JSONObject = dict(arguments or {})
    limit = max_source_bytes if max_source_bytes is not None else (
        context.max_source_bytes if context is not None else DEFAULT_MAX_SOURCE_BYTES)
    if not size_checked:
        check_source_size(args, limit)
    try:
        if spec.takes_context:
            return spec.function(args, context or default_context())
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
