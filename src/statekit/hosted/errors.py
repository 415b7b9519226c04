"""Mapping upstream HTTP failures onto the closed set of tool error codes."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from statekit.errors import ERROR_CODES, ErrorCode, ToolError

_STATUS_CODES: Mapping[int, ErrorCode] = {
    401: "unauthenticated",
    403: "forbidden",
    404: "not_found",
    409: "conflict",
    413: "payload_too_large",
    429: "rate_limited",
}


def status_default(status: int) -> ErrorCode:
    """The code an HTTP status implies when the body names none we know."""
    if status in _STATUS_CODES:
        return _STATUS_CODES[status]
    return "upstream_error" if status >= 500 else "bad_request"


def upstream_error(status: int, body: bytes, retry_after: str | None) -> ToolError:
    """A `ToolError` from an upstream error response and its `{error: {code, message}}` envelope.

    An upstream `code` is kept only when it is in the closed set; anything else falls back
    to the default for the status class, so clients never see an invented code.
    """
    envelope = _envelope(body)
    code = envelope.get("code")
    chosen: ErrorCode = code if isinstance(code, str) and code in ERROR_CODES else status_default(status)  # type: ignore[assignment]
    message = envelope.get("message")
    text = message if isinstance(message, str) and message else f"the resource API answered HTTP {status}"
    if status == 429 and retry_after:
        text = f"{text.rstrip('.')}. Retry after {_retry_phrase(retry_after)}."
    details: dict[str, Any] = {"status": status}
    if isinstance(envelope.get("issues"), list):
        details["issues"] = envelope["issues"]
    if isinstance(envelope.get("retryable"), bool):
        details["retryable"] = envelope["retryable"]
    return ToolError(chosen, text, details)


def _retry_phrase(value: str) -> str:
    stripped = value.strip()
    if stripped.isdigit():
        return f"{int(stripped)} second{'s' if int(stripped) != 1 else ''}"
    return stripped


def _envelope(body: bytes) -> Mapping[str, Any]:
    try:
        data = json.loads(body.decode("utf-8")) if body else None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return {}
    if isinstance(data, Mapping) and isinstance(data.get("error"), Mapping):
        error: Mapping[str, Any] = data["error"]
        return error
    return {}
