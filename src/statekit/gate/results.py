"""The tool results the gate writes: refusals, and the state note added to successes.

Clients that ignore `notifications/tools/list_changed` still read results, so
both carry the current state and the tools allowed now, as text for the model
and as `_meta["statekit/gate"]` for code.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from mcp_types import CallToolResult, TextContent

from statekit.gate.errors import CORRUPT_RECORD, STORE_UNAVAILABLE, GateResultCode
from statekit.gate.store import CorruptRecord, StoreError

META_KEY = "statekit/gate"


def state_label(value: Any) -> str:
    """A snapshot value as text: `review.pending`, or `a.x, b.y` for parallel regions."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        leaves: list[str] = []
        for key, child in value.items():
            if isinstance(child, dict) and not child:
                leaves.append(str(key))
                continue
            for leaf in state_label(child).split(", "):
                leaves.append(f"{key}.{leaf}")
        return ", ".join(leaves)
    return json.dumps(value)


def _tool_list(names: Sequence[str]) -> str:
    return ", ".join(names) if names else "(none)"


def refusal(
    code: GateResultCode,
    message: str,
    *,
    state: Any,
    allowed_tools: Sequence[str],
    details: dict[str, Any] | None = None,
) -> CallToolResult:
    """An `isError` result the model can recover from: what happened, the state, what to call."""
    payload: dict[str, Any] = {
        "code": code,
        "message": message,
        "state": state,
        "allowedTools": list(allowed_tools),
        **(details or {}),
    }
    text = f"{code}: {message} Tools available now: {_tool_list(allowed_tools)}."
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=payload,
        is_error=True,
        _meta={META_KEY: {"state": state, "allowedTools": list(allowed_tools)}},
    )


def state_note(
    *, state: Any, allowed_tools: Sequence[str], handle_argument: str | None, handle: str | None
) -> tuple[TextContent, dict[str, Any]]:
    """The text block and the `_meta["statekit/gate"]` value added to a successful result."""
    where = f"Workflow state: {state_label(state)}."
    if handle is not None and handle_argument is not None:
        where = (
            f"Workflow {handle_argument}={json.dumps(handle)} is in state {state_label(state)}; "
            f"pass {handle_argument} to its tools."
        )
    note = TextContent(
        type="text", text=f"{where} Tools available now: {_tool_list(allowed_tools)}."
    )
    gate_meta: dict[str, Any] = {"state": state, "allowedTools": list(allowed_tools)}
    if handle is not None:
        gate_meta["handle"] = handle
    return note, gate_meta


def with_state_note(
    result: CallToolResult,
    *,
    state: Any,
    allowed_tools: Sequence[str],
    handle_argument: str | None,
    handle: str | None,
) -> CallToolResult:
    """`result` plus a short text block and `_meta` naming the state and the tools allowed now."""
    note, gate_meta = state_note(
        state=state, allowed_tools=allowed_tools, handle_argument=handle_argument, handle=handle
    )
    meta = dict(result.meta or {})
    meta[META_KEY] = gate_meta
    return result.model_copy(update={"content": [*result.content, note], "meta": meta})


def to_call_result(value: Any) -> CallToolResult:
    """A handler's return value as a `CallToolResult`.

    `CallToolResult` passes through; `str` becomes text; a `dict` becomes
    structured content plus its JSON as text; a list of content blocks is the
    content; `None` is an empty success.
    """
    if isinstance(value, CallToolResult):
        return value
    if value is None:
        return CallToolResult(content=[])
    if isinstance(value, str):
        return CallToolResult(content=[TextContent(type="text", text=value)])
    if isinstance(value, dict):
        return CallToolResult(
            content=[TextContent(type="text", text=json.dumps(value, default=str))],
            structured_content=value,
        )
    if isinstance(value, list):
        return CallToolResult(content=value)
    raise TypeError(
        f"a gated tool handler returned {type(value).__name__}; return str, dict, a list of "
        "content blocks, None or a CallToolResult"
    )


def error_result(message: str) -> CallToolResult:
    """An `isError` result for a handler that raised."""
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)


def store_fault(error: StoreError, key: str) -> CallToolResult:
    if isinstance(error, CorruptRecord):
        return refusal(
            CORRUPT_RECORD,
            f"The stored state of workflow {key!r} cannot be read ({error.reason}). "
            "Retrying will not help until an operator repairs it (statekit gate inspect/reset/"
            "force/delete).",
            state=None,
            allowed_tools=[],
            details={"workflow": key, "retryable": False},
        )
    return refusal(
        STORE_UNAVAILABLE,
        f"The state store is unavailable for workflow {key!r} ({error.reason}); nothing ran. "
        "Retry shortly.",
        state=None,
        allowed_tools=[],
        details={"workflow": key, "retryable": True},
    )
