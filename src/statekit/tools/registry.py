"""One registry of operations and the one pipeline every call goes through.

name -> `ToolSpec` (input schema, function, output schema, annotations). The Python API
(`statekit.tools.call`), the CLI (`statekit call` and the friendly commands) and the MCP server
all run a call through `run_call`, so the three faces accept and refuse exactly the same calls
with the same error codes:

    arguments -> 1 size limit -> 2 input schema -> 3 the tool's function -> 4 output schema -> result

The faces only translate: the CLI parses its command line into arguments and prints the result,
the server maps the result (or the `ToolError`) to MCP content. Nothing else checks arguments:
a tool's function may assume its arguments conform to its input schema.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import logging
import os
import threading
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from statekit.budget import (
    DEFAULT_CALL_MEMORY,
    DEFAULT_CALL_SECONDS,
    DEFAULT_MAX_OUTPUT_BYTES,
    BudgetStop,
    CallBudget,
    current_budget,
    output_limit_error,
    parse_byte_size,
    running,
)
from statekit.errors import ToolError
from statekit.hosted.provider import DEFAULT_CLIENT_ID, ResourceProvider
from statekit.tools.schema_check import SchemaCheck, SchemaViolation
from statekit.verify.adapter import VerificationAdapter

logger = logging.getLogger(__name__)

JSONObject = dict[str, Any]
#: `function(arguments)`, or `function(arguments, context)` when `takes_context` is set.
ToolFunction = Callable[..., JSONObject]
#: `compute(function, *args)`: runs a module-level function on JSON-like arguments and returns
#: its JSON-like result (see `ToolContext.compute`).
Compute = Callable[..., Any]
#: `explain_refusal(arguments, violation)`: see `ToolSpec.explain_refusal`.
RefusalExplainer = Callable[[JSONObject, SchemaViolation], "str | None"]

#: Default quota of live machines per principal (`--live-max-machines`, `--live-max-bytes`).
DEFAULT_LIVE_MAX_MACHINES = 100
DEFAULT_LIVE_MAX_BYTES = 64 * 1024 * 1024
#: Default cap on the UTF-8 size of any source text a tool accepts (`maxSourceBytes`).
DEFAULT_MAX_SOURCE_BYTES = 1024 * 1024
#: Longest tool name quoted back when a caller names an unknown tool (the name is caller text).
_NAME_CLIP = 64


@dataclass(frozen=True)
class ToolAnnotations:
    """MCP tool annotations. The default is a read-only, closed-world tool; a tool that changes
    anything (a live machine, the system under test) says so, and the server's instructions
    list those tools from these annotations (`statekit.server.catalog.server_instructions`)."""

    read_only: bool = True
    destructive: bool = False
    idempotent: bool = True
    open_world: bool = False


@dataclass(frozen=True, kw_only=True)
class ToolSpec:
    """One operation of the product surface (keywords only: `ToolSpec(name=..., ...)`)."""

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
    #: A domain message for an input-schema refusal (e.g. "unknown format 'bpmn'; known
    #: formats: ..." where the schema would say "must be one of ..."), or None to keep the
    #: schema's. It only words the refusal: the call is refused with `invalid_input` either way.
    explain_refusal: RefusalExplainer | None = None
    #: Whether `function` needs objects only the host process holds (the live-machine store, a
    #: verification adapter, a resource provider). The call supervisor runs every other tool in
    #: a worker process; a host-side tool runs in the calling process and sends its CPU- and
    #: memory-heavy part to a worker through `context.compute` (`statekit.tools.supervisor`).
    host_side: bool = False
    #: Arguments also checked at stage 2 against a schema too long to list with the tool (the
    #: patch catalog): argument name -> its complete schema. `input_schema` carries a compact
    #: schema of the argument whose description points to the complete one (an MCP resource,
    #: `statekit.tools.references`); a refusal reads exactly as a refusal of `input_schema`.
    argument_schemas: Mapping[str, JSONObject] = field(default_factory=dict)


def compute_in_call(function: Callable[..., Any] | str, *args: Any) -> Any:
    """`ToolContext.compute`: run `function` (or a dotted name) in the worker of the call
    supervisor running this call, or here when no supervisor runs it (`compute_route`)."""
    route = compute_route.get()
    if route is not None:
        return route(function, args)
    return resolve_function(function)(*args)


#: Set by the call supervisor around a host-side tool it runs: `route(function, args)` runs
#: `function(*args)` in a worker process under the call's budget.
compute_route: ContextVar[Callable[[Callable[..., Any] | str, tuple[Any, ...]], Any] | None] = ContextVar(
    "statekit_compute_route", default=None)


def resolve_function(function: Callable[..., Any] | str) -> Callable[..., Any]:
    """`function`, or the module-level function a dotted name `statekit.package.module.name` names."""
    if callable(function):
        return function
    module_name, _, attribute = function.rpartition(".")
    if not module_name.startswith("statekit.") or not attribute.isidentifier():
        raise ValueError(f"compute takes a function or a statekit module's function by dotted name, not {function!r}")
    found = getattr(importlib.import_module(module_name), attribute)
    if not callable(found):
        raise ValueError(f"{function!r} is not a function")
    return found  # type: ignore[no-any-return]


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
    resource_provider: ResourceProvider | None = None
    #: The host's `execute_verification` adapter for `verify` (None: verification unavailable).
    verification_adapter: VerificationAdapter | None = None
    #: The root the workspace tools may read below.
    workspace_root: str = "."
    #: Where the server keeps what outlives a call (live machines): `memory://`, `sqlite:///path`, `redis://...`.
    store_url: str = "memory://"
    #: Live machines one principal may keep, and their bytes (`quota_exceeded` past either).
    live_max_machines: int = DEFAULT_LIVE_MAX_MACHINES
    live_max_bytes: int = DEFAULT_LIVE_MAX_BYTES
    #: Who is calling, for what outlives a call (a live machine belongs to its principal): set per
    #: call by an authenticating server (`run_call(principal=...)`); None is the one local principal.
    principal: str | None = None
    #: What tools make once per context and share with its per-call copies (the live machine
    #: service on `store_url`: `statekit.tools.live_tools`).
    shared: dict[str, Any] = field(default_factory=dict)
    #: Seconds one call may run before it is stopped (`deadline_exceeded`); None: no limit.
    call_seconds: float | None = DEFAULT_CALL_SECONDS
    #: Bytes of JSON one result may hold (`output_too_large`); None: no limit.
    max_output_bytes: int | None = DEFAULT_MAX_OUTPUT_BYTES
    #: Bytes of memory one supervised call may use (`resource_exhausted`); None: no limit.
    call_memory: int | None = DEFAULT_CALL_MEMORY
    #: Where a host-side tool runs its heavy part (`compute(function, *args)`): in the call
    #: supervisor's worker when one runs the call, else here (`statekit.tools.registry.compute_in_call`).
    compute: Compute = compute_in_call

    @classmethod
    def from_environment(cls, **overrides: Any) -> ToolContext:
        """The default context: providers configured from environment variables."""
        from statekit.hosted.config import provider_from_environment

        for variable, key, kind in (("STATEKIT_CALL_TIMEOUT", "call_seconds", float),
                                    ("STATEKIT_MAX_OUTPUT_BYTES", "max_output_bytes", int),
                                    ("STATEKIT_LIVE_MAX_MACHINES", "live_max_machines", int),
                                    ("STATEKIT_LIVE_MAX_BYTES", "live_max_bytes", int),
                                    ("STATEKIT_CALL_MEMORY", "call_memory", parse_byte_size)):
            text = os.environ.get(variable, "").strip()
            if key not in overrides and text:
                try:
                    value = kind(text)
                except ValueError:
                    raise ValueError(f"{variable} must be a positive number, not {text!r}") from None
                if not value > 0:
                    raise ValueError(f"{variable} must be a positive number, not {text!r}")
                overrides[key] = value
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


def unknown_tool(name: str, known: Mapping[str, ToolSpec] | list[str]) -> ToolError:
    """The `invalid_input` error for a call to a tool that is not served."""
    shown = name if len(name) <= _NAME_CLIP else name[:_NAME_CLIP] + "..."
    listing = ", ".join(sorted(known)) or "(none)"
    return ToolError("invalid_input", f"unknown tool {shown!r}; known tools: {listing}")


def get(name: str) -> ToolSpec:
    """The tool called `name`, or `invalid_input` naming the known tools."""
    known = tools()
    if name not in known:
        raise unknown_tool(name, known)
    return known[name]


# --- the pipeline -------------------------------------------------------------------------------


def call(
    name: str,
    arguments: Mapping[str, Any] | None = None,
    *,
    max_source_bytes: int | None = None,
    context: ToolContext | None = None,
    budget: CallBudget | None = None,
    supervised: bool | None = None,
) -> JSONObject:
    """Run tool `name` on `arguments` and return its structured result; failures raise ToolError.

    `max_source_bytes` overrides the context's size limit for this call; `budget` its time
    and output limits (see `run_call`).

    `supervised=True` runs the call through the call supervisor (a worker process that bounds
    its time and memory, `statekit.tools.supervisor`); `False` runs it in this thread. The
    default is this process's choice (`supervise_calls`): the command line supervises every
    call, a plain library user runs in-process (no worker start-up, results keep their Python
    types, and the caller's own code is what it trusts).
    """
    spec = get(name)
    if context is None:
        context = default_context()
    if supervised or (supervised is None and _process_supervisor is not None):
        from statekit.tools.supervisor import Supervisor

        supervisor = _process_supervisor() if _process_supervisor is not None else Supervisor.shared()
        return supervisor.call(spec, arguments, context, max_source_bytes=max_source_bytes, budget=budget)
    return run_call(spec, arguments, context, max_source_bytes=max_source_bytes, budget=budget)


#: The supervisor every `call` of this process goes through unless it says otherwise (None: none).
_process_supervisor: Callable[[], Any] | None = None


def supervise_calls(supervisor: Callable[[], Any] | None) -> None:
    """Make every `call` of this process run through `supervisor()` (a `Supervisor`, made on
    first use) unless it passes `supervised=False`; None goes back to running calls in-process."""
    global _process_supervisor
    _process_supervisor = supervisor


def run_call(
    spec: ToolSpec,
    arguments: Any,
    context: ToolContext,
    *,
    max_source_bytes: int | None = None,
    budget: CallBudget | None = None,
    principal: str | None = None,
) -> JSONObject:
    """The pipeline: size limit -> input schema -> the tool -> output schema -> output limit.

    Every face calls this (the server through the call supervisor's worker processes). Each
    stage raises `ToolError` with a code from the closed set; anything else a tool raises
    becomes `internal_error`.

    Stages 3-5 run under the call's budget (`statekit.budget`): `budget` when given (the
    server's, which it cancels when the client cancels or goes away, and which carries its
    progress listener), else the budget of an enclosing call (a tool calling a tool shares
    it), else one from the context's `call_seconds` and `max_output_bytes`. Work that reaches
    a budget check past the deadline stops with `deadline_exceeded` (or `cancelled`); a
    result over the output limit is refused with `output_too_large` naming the limit.

    `principal` is who the server authenticated for this call (None: the one local principal);
    the tool sees it as `context.principal`.
    """
    if principal is not None:
        context = dataclasses.replace(context, principal=principal)
    return run_call_encoded(spec, arguments, context, max_source_bytes=max_source_bytes, budget=budget)[0]


def run_call_encoded(
    spec: ToolSpec,
    arguments: Any,
    context: ToolContext,
    *,
    max_source_bytes: int | None = None,
    budget: CallBudget | None = None,
) -> tuple[JSONObject, bytes]:
    """`run_call`, with the result's UTF-8 JSON as the output limit measured it (a worker
    sends those bytes back as they are: the result is encoded once)."""
    args = _as_arguments(arguments)
    limit = max_source_bytes if max_source_bytes is not None else context.max_source_bytes
    check_source_size(args, limit)  # 1: before anything parses or validates the input
    check_input(spec, args)  # 2
    if budget is None:
        budget = current_budget() or CallBudget(seconds=context.call_seconds,
                                                max_output_bytes=context.max_output_bytes)
    try:
        with running(budget):
            result = _run_function(spec, args, context)  # 3
            check_output(spec, result)  # 4
            encoded = check_output_size(result, budget.max_output_bytes)  # 5
    except BudgetStop as stop:
        raise stop.error from None
    return result, encoded


def _as_arguments(arguments: Any) -> JSONObject:
    if arguments is None:
        return {}
    if not isinstance(arguments, Mapping):
        raise ToolError("invalid_input", "tool arguments must be a JSON object")
    return dict(arguments)


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


def check_input(spec: ToolSpec, arguments: JSONObject) -> None:
    """Raise `invalid_input` naming the place and the rule when `arguments` break the schema."""
    try:
        violation = _checks_of(spec).input.first_violation(arguments)
        for name, check in _checks_of(spec).arguments.items():
            if violation is not None:
                break
            if name in arguments:
                found = check.first_violation(arguments[name])
                violation = None if found is None else dataclasses.replace(found, pointer=f"/{name}{found.pointer}")
    except RecursionError:
        raise ToolError("input_too_large", "input nests too deeply to process") from None
    if violation is None:
        return
    message = spec.explain_refusal(arguments, violation) if spec.explain_refusal is not None else None
    raise ToolError(
        "invalid_input",
        f"invalid arguments for {spec.name}: {message or violation.plain or violation.describe()}",
        {"path": violation.pointer, "keyword": violation.keyword},
    )


def _run_function(spec: ToolSpec, arguments: JSONObject, context: ToolContext) -> JSONObject:
    try:
        if spec.takes_context:
            return spec.function(arguments, context)
        return spec.function(arguments)
    except ToolError:
        raise
    except RecursionError:
        raise ToolError("input_too_large", "input nests too deeply to process") from None
    except Exception as exc:  # a bug in a tool: never leak the traceback to the caller
        raise ToolError("internal_error", f"{spec.name} failed unexpectedly ({type(exc).__name__})") from exc


def check_output(spec: ToolSpec, result: Any) -> None:
    """Raise `internal_error` when a tool's result is not what its output schema promises.

    The `content_key` entry (MCP content blocks) is not structured content: it is left out.
    """
    if not isinstance(result, dict):
        raise ToolError("internal_error", f"{spec.name} returned a result that is not a JSON object")
    structured = result if spec.content_key is None else {k: v for k, v in result.items() if k != spec.content_key}
    try:
        violation = _checks_of(spec).output.first_violation(structured)
    except RecursionError:
        raise ToolError("internal_error", f"{spec.name} returned a result that could not be checked") from None
    if violation is not None:
        # Logged with location and rule only: the result may carry the caller's content.
        logger.error("%s broke its output schema at %s", spec.name, violation.describe())
        raise ToolError("internal_error", f"{spec.name} returned a result that does not match its output schema")


@dataclass(frozen=True)
class _Checks:
    spec: ToolSpec
    input: SchemaCheck
    output: SchemaCheck
    arguments: dict[str, SchemaCheck]


_CHECKS: dict[str, _Checks] = {}
_CHECKS_LOCK = threading.Lock()


def _checks_of(spec: ToolSpec) -> _Checks:
    """The compiled schema checks of `spec`, built once (per spec object: tests swap tools)."""
    with _CHECKS_LOCK:
        checks = _CHECKS.get(spec.name)
        if checks is None or checks.spec is not spec:
            checks = _Checks(spec, SchemaCheck(spec.input_schema), SchemaCheck(spec.output_schema),
                             {name: SchemaCheck(schema) for name, schema in spec.argument_schemas.items()})
            _CHECKS[spec.name] = checks
        return checks


def check_output_size(result: Any, limit: int | None) -> bytes:
    """Refuse a result whose JSON is over `limit` bytes with `output_too_large` naming the limit;
    return that JSON (UTF-8; a lone surrogate a machine's code made is kept, as `surrogatepass`).

    The result is encoded strictly (no `default=`): a value JSON cannot hold (an engine object
    such as JavaScript's `undefined` leaking out of a tool) is `internal_error` here, naming
    its type, rather than a string every face would render differently, or a crash in the
    server's encoder after the call has been counted as answered.
    """
    try:
        encoded = json.dumps(result, ensure_ascii=False, allow_nan=True).encode("utf-8", "surrogatepass")
    except TypeError as error:
        raise ToolError("internal_error", f"the tool returned a value JSON cannot hold ({error})") from None
    except (ValueError, RecursionError):
        raise ToolError("internal_error", "the tool returned a result that cannot be encoded as JSON") from None
    if limit is not None and len(encoded) > limit:
        raise output_limit_error(limit, len(encoded))
    return encoded


_default_context: ToolContext | None = None


def default_context() -> ToolContext:
    """The context `call` uses when none is given (built once from the environment)."""
    global _default_context
    if _default_context is None:
        _default_context = ToolContext.from_environment()
    return _default_context


#: Every built-in tool and the module (in `statekit/tools/`) that holds its code: one hop from a
#: tool's name to its code. Importing a module registers its tools; a new tool is added here.
TOOL_MODULES: dict[str, str] = {
    "apply_machine_patches": "change_tools",
    "check_machine_properties": "property_tools",
    "convert_machine": "convert_tools",
    "coverage_report": "verify_tools",
    "diff_machines": "change_tools",
    "extract_machines_from_code": "extract_tools",
    "generate_graph_paths": "path_tools",
    "generate_test_paths": "verify_tools",
    "get_machine": "workspace_tools",
    "get_machine_snapshot": "live_tools",
    "get_stately_machine": "hosted_tools",
    "get_stately_project": "hosted_tools",
    "list_machines": "workspace_tools",
    "list_stately_project_machines": "hosted_tools",
    "list_stately_projects": "hosted_tools",
    "review_machine_implementation": "change_tools",
    "send_events": "live_tools",
    "simulate_machine": "machine_tools",
    "start_machine": "live_tools",
    "stop_machine": "live_tools",
    "validate_machine": "machine_tools",
    "verify": "verify_tools",
    "visualize_machine": "visualize_tools",
    "visualize_stately_machine": "hosted_tools",
}

_LOADED = False
#: The built-in tools as their modules registered them: a worker process has the same ones, so a
#: call to one crosses to a worker by name (any other `ToolSpec` crosses whole).
_BUILTIN: dict[str, ToolSpec] = {}


def is_builtin(spec: ToolSpec) -> bool:
    """Whether `spec` is the built-in tool of its name, as its module registered it."""
    return _BUILTIN.get(spec.name) is spec


_LOADING = threading.RLock()


def _load_builtin_tools() -> None:
    global _LOADED
    if _LOADED:
        return
    with _LOADING:  # another thread asking meanwhile waits for all of them, never sees half
        if _LOADED:
            return
        for module in dict.fromkeys(TOOL_MODULES.values()):
            importlib.import_module(f"statekit.tools.{module}")
        _BUILTIN.update((name, _REGISTRY[name]) for name in TOOL_MODULES if name in _REGISTRY)
        _LOADED = True
    missing = [name for name in TOOL_MODULES if name not in _REGISTRY]
    if missing:  # the index and the modules disagree: a programming error, not a caller's
        raise RuntimeError(f"TOOL_MODULES names tools no module registered: {', '.join(missing)}")
