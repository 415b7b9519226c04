"""Tool-call observation: one content-free completion event per call, delivered without awaiting.

The event names the tool, the outcome, the duration and the stable error code, plus the
caller's W3C trace context when the request carried one. It never holds arguments, machine
sources or results, so an observer can ship it to any telemetry sink without a privacy review.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal, NotRequired, TypedDict

logger = logging.getLogger(__name__)


class ToolCallEvent(TypedDict):
    """What an observer learns about one finished tool call."""

    tool: str
    outcome: Literal["success", "error"]
    durationMs: float
    errorCode: NotRequired[str]
    traceparent: NotRequired[str]
    tracestate: NotRequired[str]
    baggage: NotRequired[str]


#: A plain function or a coroutine function; its return value is never awaited by the call.
ToolCallObserver = Callable[[ToolCallEvent], object]

#: The `_meta` keys MCP reserves for trace context (SEP-414), with the W3C size ceilings;
#: a longer value is not trace context, so it is dropped rather than forwarded.
TRACE_CONTEXT_LIMITS: Mapping[str, int] = {"traceparent": 512, "tracestate": 512, "baggage": 8192}

# Fire-and-forget tasks must stay referenced until they finish, or the loop may drop them.
_pending_deliveries: set[asyncio.Task[None]] = set()


def trace_context(meta: Mapping[str, Any] | None) -> dict[str, str]:
    """The trace-context entries of a request's `_meta`, when they are well-formed strings."""
    if not meta:
        return {}
    found: dict[str, str] = {}
    for key, limit in TRACE_CONTEXT_LIMITS.items():
        value = meta.get(key)
        if isinstance(value, str) and 0 < len(value) <= limit:
            found[key] = value
    return found


def build_event(
    tool: str,
    *,
    duration_ms: float,
    error_code: str | None,
    trace: Mapping[str, str],
) -> ToolCallEvent:
    """Assemble the completion event; only names, codes, timing and trace ids go in."""
    event: ToolCallEvent = {
        "tool": tool,
        "outcome": "success" if error_code is None else "error",
        "durationMs": round(duration_ms, 3),
    }
    if error_code is not None:
        event["errorCode"] = error_code
    for key in TRACE_CONTEXT_LIMITS:
        if key in trace:
            event[key] = trace[key]  # type: ignore[literal-required]
    return event


def deliver(observer: ToolCallObserver, event: ToolCallEvent) -> None:
    """Hand `event` to `observer` so that nothing it does can change or delay the tool result.

    A plain function is called right away and its exceptions are logged and swallowed. When the
    observer returns an awaitable (a coroutine function, or a function returning a coroutine),
    the awaitable runs as a detached task: the tool result is sent without waiting for it.
    """
    try:
        outcome = observer(event)
    except Exception:
        logger.warning(
            "the tool-call observer raised; the tool result is unaffected", exc_info=True
        )
        return
    if not inspect.isawaitable(outcome):
        return
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        _discard(outcome)
        logger.warning(
            "the tool-call observer returned an awaitable outside an event loop; dropped it"
        )
        return
    task = loop.create_task(_settle(outcome))
    _pending_deliveries.add(task)
    task.add_done_callback(_pending_deliveries.discard)


async def _settle(awaitable: Awaitable[object]) -> None:
    try:
        await awaitable
    except Exception:
        logger.warning(
            "the tool-call observer failed; the tool result is unaffected", exc_info=True
        )


def _discard(awaitable: Awaitable[object]) -> None:
    # An un-awaited coroutine warns at garbage collection; close it explicitly instead.
    close = getattr(awaitable, "close", None)
    if callable(close):
        close()
