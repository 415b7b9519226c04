"""One tool call, end to end: limits, argument checks, the tool, result checks, MCP result, event.

The order matters: the size limit is checked before anything parses or validates the input,
the argument schema before the tool runs, and the output schema before anything is returned.
The work runs in a worker thread so a long analysis never stalls other requests.
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio.to_thread
import mcp_types as types
from pydantic import TypeAdapter

from statekit.errors import ToolError
from statekit.server.observer import ToolCallObserver, build_event, deliver, trace_context
from statekit.server.schema_check import SchemaCheck
from statekit.tools import registry
from statekit.tools.registry import JSONObject, ToolContext, ToolSpec

logger = logging.getLogger(__name__)

#: Checks one content block a tool returned under its `content_key` (image, audio, text, ...).
CONTENT_BLOCK: TypeAdapter[types.ContentBlock] = TypeAdapter(types.ContentBlock)


@dataclass
class ToolCaller:
    """Runs calls to the tools of one catalog and reports each finished call to the observer."""

    catalog: Mapping[str, ToolSpec]
    max_source_bytes: int
    observer: ToolCallObserver | None = None
    #: The host's providers and adapters, handed to tools that take a context.
    context: ToolContext | None = None
    _input_checks: dict[str, SchemaCheck] = field(default_factory=dict, init=False)
    _output_checks: dict[str, SchemaCheck] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        for name, spec in self.catalog.items():
            self._input_checks[name] = SchemaCheck(spec.input_schema)
            self._output_checks[name] = SchemaCheck(spec.output_schema)

    async def call(
        self, spec: ToolSpec, arguments: Mapping[str, Any] | None, meta: Mapping[str, Any] | None
    ) -> types.CallToolResult:
        """Run `spec` on `arguments`; every failure becomes an `isError` result, never an exception."""
        started = time.perf_counter()
        error_code: str | None = None
        try:
            structured, text, blocks = await anyio.to_thread.run_sync(self._run, spec, arguments)
            result = success_result(structured, text, blocks)
        except ToolError as exc:
            if exc.code == "internal_error" and exc.__cause__ is not None:
                # A tool bug: keep the traceback in the server log, send only the code and message.
                logger.error("tool %s failed", spec.name, exc_info=exc.__cause__)
            error_code = exc.code
            result = error_result(exc, envelope=spec.error_envelope)
        except Exception:
            # A bug in the server path itself; the log keeps the traceback, the client never sees it.
            logger.exception("tool %s failed inside the server", spec.name)
            error_code = "internal_error"
            result = error_result(ToolError("internal_error", f"{spec.name} failed unexpectedly"),
                                  envelope=spec.error_envelope)
        if self.observer is not None:
            elapsed_ms = (time.perf_counter() - started) * 1000.0
            event = build_event(
                spec.name, duration_ms=elapsed_ms, error_code=error_code, trace=trace_context(meta)
            )
            deliver(self.observer, event)
        return result

    def _run(
        self, spec: ToolSpec, arguments: Mapping[str, Any] | None
    ) -> tuple[JSONObject, str, list[types.ContentBlock]]:
        if arguments is None:
            arguments = {}
        try:
            registry.check_source_size(arguments, self.max_source_bytes)
            violation = self._input_checks[spec.name].first_violation(arguments)
        except RecursionError:
            raise ToolError("input_too_large", "input nests too deeply to process") from None
        if violation is not None:
            raise ToolError(
                "invalid_input",
                f"invalid arguments for {spec.name}: {violation.describe()}",
                {"path": violation.pointer, "keyword": violation.keyword},
            )
        structured = registry.call(spec.name, arguments, max_source_bytes=self.max_source_bytes,
                                   context=self.context, size_checked=True)
        blocks = self._take_content_blocks(spec, structured)
        self._check_output(spec, structured)
        try:
            text = (
                spec.summarize(structured)
                if spec.summarize is not None
                else compact_json(structured)
            )
        except Exception as exc:
            raise ToolError(
                "internal_error", f"{spec.name} could not summarize its result"
            ) from exc
        return structured, text, blocks

    def _take_content_blocks(self, spec: ToolSpec, structured: Any) -> list[types.ContentBlock]:
        """Move the blocks under `spec.content_key` out of the result (they are not structured data)."""
        if spec.content_key is None or not isinstance(structured, dict):
            return []
        raw = structured.pop(spec.content_key, [])
        try:
            return [CONTENT_BLOCK.validate_python(block) for block in raw]
        except (TypeError, ValueError) as exc:
            raise ToolError(
                "internal_error", f"{spec.name} returned content blocks that are not valid MCP content"
            ) from exc

    def _check_output(self, spec: ToolSpec, structured: Any) -> None:
        if not isinstance(structured, dict):
            raise ToolError(
                "internal_error", f"{spec.name} returned a result that is not a JSON object"
            )
        try:
            violation = self._output_checks[spec.name].first_violation(structured)
        except RecursionError:
            raise ToolError(
                "internal_error", f"{spec.name} returned a result that could not be checked"
            ) from None
        if violation is not None:
            # Logged with location and rule only: the result may carry the caller's content.
            logger.error("%s broke its output schema at %s", spec.name, violation.describe())
            raise ToolError(
                "internal_error",
                f"{spec.name} returned a result that does not match its output schema",
            )


def compact_json(value: Any) -> str:
    """JSON without whitespace, for the text block of a tool that has no summarizer.

    A non-finite float (a machine's own arithmetic can make one) is written `null`, as the
    structured content carries it: `NaN`/`Infinity` are not JSON.
    """
    try:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except ValueError:
        return json.dumps(_finite(value), separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value


def success_result(
    structured: JSONObject, text: str, blocks: Sequence[types.ContentBlock] = ()
) -> types.CallToolResult:
    """The structured result plus one short text block for the model, then any native blocks."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text), *blocks],
        structured_content=structured,
        is_error=False,
    )


def error_result(error: ToolError, *, envelope: bool = False) -> types.CallToolResult:
    """An `isError` result whose structured content and text both carry `{code, message, ...}`,
    or, with `envelope`, the canonical resource envelope `{error: {code, message, issues?, retryable?}}`."""
    payload = error.to_envelope() if envelope else error.to_dict()
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=compact_json(payload))],
        structured_content=payload,
        is_error=True,
    )
