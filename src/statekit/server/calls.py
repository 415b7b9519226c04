"""One MCP tool call: the registry's pipeline in a worker thread, its result as MCP content.

Every check (size limit, input schema, the tool, output schema) is the registry's
`run_call`, the same pipeline the Python API and the CLI run, so the server accepts and refuses
exactly what they do. What is the server's own: running the work in a worker thread (a long
analysis never stalls other requests), turning the result into MCP content (the summary text,
the native content blocks under `content_key`) and reporting the finished call to the observer.
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
import mcp_types as types
from pydantic import TypeAdapter

from statekit.errors import ToolError
from statekit.server.observer import ToolCallObserver, build_event, deliver, trace_context
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
    #: The host's providers and adapters, handed to tools that take a context
    #: (None: the registry's default context, built from the environment).
    context: ToolContext | None = None

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
        context = self.context if self.context is not None else registry.default_context()
        structured = registry.run_call(
            spec, arguments, context, max_source_bytes=self.max_source_bytes
        )
        blocks = self._take_content_blocks(spec, structured)
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

    def _take_content_blocks(self, spec: ToolSpec, structured: JSONObject) -> list[types.ContentBlock]:
        """Move the blocks under `spec.content_key` out of the result (they are not structured data)."""
        if spec.content_key is None:
            return []
        raw = structured.pop(spec.content_key, [])
        try:
            return [CONTENT_BLOCK.validate_python(block) for block in raw]
        except (TypeError, ValueError) as exc:
            raise ToolError(
                "internal_error", f"{spec.name} returned content blocks that are not valid MCP content"
            ) from exc


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
