"""One MCP tool call: the registry's pipeline in the call supervisor, its result as MCP content.

Every check (size limit, input schema, the tool, output schema) is the registry's
`run_call`, the same pipeline the Python API and the CLI run, so the server accepts and refuses
exactly what they do. It runs in a worker process of the call supervisor
(`statekit.tools.supervisor`), which bounds its time and memory whatever the tool does; the
server waits for it on a thread (a long analysis never stalls other requests). What is the
server's own: turning the result into MCP content (the summary text, the native content blocks
under `content_key`) and reporting the finished call to the observer.
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.from_thread
import anyio.to_thread
import mcp_types as types
from pydantic import TypeAdapter

from statekit.budget import CallBudget, time_limit_error
from statekit.errors import ToolError
from statekit.server.observer import ToolCallObserver, build_event, deliver, trace_context
from statekit.tools import registry
from statekit.tools.registry import JSONObject, ToolContext, ToolSpec
from statekit.tools.supervisor import Supervisor

logger = logging.getLogger(__name__)

#: Seconds past a call's deadline the server still waits for the work to stop by itself.
_DEADLINE_GRACE_SECONDS = 2.0
#: `progress(done, total, message)`: sends one MCP progress notification (the SDK's
#: `report_progress`, a no-op when the client sent no progress token).
ProgressSender = Callable[[float, float | None, str | None], Awaitable[None]]


def _progress_bridge(progress: ProgressSender | None) -> Any:
    """A callback for the worker thread that sends each report on the event loop."""
    if progress is None:
        return None

    def send(done: float, total: float | None, message: str | None) -> None:
        async def once() -> None:
            await progress(done, total, message)

        anyio.from_thread.run(once)

    return send


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
    #: The call supervisor every call runs through; None runs calls in server threads, without
    #: the time and memory guarantees (`create_server(in_process=True)`: tests, hosts that isolate).
    supervisor: Supervisor | None = None

    async def call(
        self,
        spec: ToolSpec,
        arguments: Mapping[str, Any] | None,
        meta: Mapping[str, Any] | None,
        progress: ProgressSender | None = None,
        *,
        principal: str | None = None,
    ) -> types.CallToolResult:
        """Run `spec` on `arguments`; every failure becomes an `isError` result, never an exception.

        The call runs under its budget (the context's `call_seconds` and `max_output_bytes`).
        When the client cancels the request (or its transport goes away) the task running this
        is cancelled: the budget is cancelled too, so the worker stops at its next check (and the
        supervisor kills it after a grace). If the work overruns its deadline without reaching a
        check, the supervisor kills its worker and the caller is answered `deadline_exceeded`.
        `progress` passes the work's progress reports to the client (a no-op unless it sent a
        progress token). `principal` is who the HTTP bearer guard authenticated (None: no
        authentication), passed on to the pipeline.
        """
        started = time.perf_counter()
        error_code: str | None = None
        settings = self.context or registry.default_context()
        budget = CallBudget(seconds=settings.call_seconds, max_output_bytes=settings.max_output_bytes,
                            on_progress=_progress_bridge(progress))
        try:
            # Supervised, the supervisor answers at the deadline (it kills the worker); in server
            # threads, this waits no longer than the deadline plus a grace for work that never checks.
            supervised = self.supervisor is not None
            grace = None if budget.seconds is None or supervised else budget.seconds + _DEADLINE_GRACE_SECONDS
            with anyio.move_on_after(grace) as overrun:
                structured, text, blocks = await anyio.to_thread.run_sync(
                    self._run, spec, arguments, budget, principal, abandon_on_cancel=True)
            if overrun.cancelled_caught:
                logger.warning("tool %s overran its %ss budget without reaching a check; abandoned",
                               spec.name, budget.seconds)
                raise time_limit_error(budget.seconds)
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
        finally:
            budget.cancel()  # finished, failed or cancelled: any work still running stops
        if self.observer is not None:
            elapsed_ms = (time.perf_counter() - started) * 1000.0
            event = build_event(
                spec.name, duration_ms=elapsed_ms, error_code=error_code, trace=trace_context(meta)
            )
            deliver(self.observer, event)
        return result

    def _run(
        self, spec: ToolSpec, arguments: Mapping[str, Any] | None, budget: CallBudget | None = None,
        principal: str | None = None,
    ) -> tuple[JSONObject, str, list[types.ContentBlock]]:
        context = self.context if self.context is not None else registry.default_context()
        if self.supervisor is not None:
            structured = self.supervisor.call(spec, arguments, context, max_source_bytes=self.max_source_bytes,
                                              budget=budget, principal=principal)
        else:
            structured = registry.run_call(spec, arguments, context, max_source_bytes=self.max_source_bytes,
                                           budget=budget, principal=principal)
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
    """An `isError` result a model can read: the text starts with a sentence (`error_sentence`),
    followed on the next line by the structured content as JSON, for clients that show only text.
    The structured content is `{code, message, ...}`, or, with `envelope`, the canonical resource
    envelope `{error: {code, message, issues?, retryable?}}` of the hosted tools."""
    payload = error.to_envelope() if envelope else error.to_dict()
    text = f"{error_sentence(error)}\n{compact_json(payload)}"
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=payload,
        is_error=True,
    )


def error_sentence(error: ToolError) -> str:
    """`Error (code): message.`, the message ending as a sentence does."""
    message = error.message.rstrip()
    if not message.endswith((".", "?", "!")):
        message += "."
    return f"Error ({error.code}): {message}"
