"""Strict reading of incoming JSON-RPC text, shared by the HTTP and stdio transports.

Python's and the SDK's JSON parsers accept `NaN` and `Infinity` (not JSON: a result would
later echo `Infinity` in its text block), and they report a 5,000-digit number or params
nested 5,000 deep as a bare "Parse error". Here a message is refused *before* the SDK sees
it, with a JSON-RPC error that says what was wrong:

- text that is not JSON at all, and `NaN`/`Infinity`: -32700 Parse error;
- valid JSON over a limit (a number literal over `MAX_NUMBER_CHARS` characters, nesting
  deeper than `MAX_NESTING`): -32600 Invalid Request, naming the limit in `error.data`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

PARSE_ERROR = -32700
INVALID_REQUEST = -32600

#: The longest number literal accepted (digits, sign, point and exponent). No tool argument
#: needs more; Python's own int parsing stops at 4,300 digits with an unhelpful error.
MAX_NUMBER_CHARS = 100
#: The deepest nesting of arrays and objects accepted: the SDK's own JSON parser (used on
#: stdio and for 2025 HTTP clients) stops near 200 levels, so deeper input is refused the
#: same way on every path.
MAX_NESTING = 200
#: The largest message by default (an HTTP body, a stdio line), the SDK's own request cap;
#: raised when the source limit needs more room (JSON escaping can grow a source several
#: times, and `input_too_large` is the clearer refusal for sources).
BASE_MAX_MESSAGE_BYTES = 4 * 1024 * 1024


def default_max_message_bytes(max_source_bytes: int) -> int:
    """A message cap that leaves room for a source at its limit plus its JSON envelope."""
    return max(BASE_MAX_MESSAGE_BYTES, 2 * max_source_bytes + 1024 * 1024)


@dataclass(frozen=True)
class Rejection:
    """Why a message was refused: a JSON-RPC error code, a message and its `data`."""

    code: int
    message: str
    data: dict[str, Any]
    request_id: str | int | None = None

    def response(self) -> dict[str, Any]:
        """The JSON-RPC error response object."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data:
            error["data"] = self.data
        return {"jsonrpc": "2.0", "id": self.request_id, "error": error}

    def encoded(self) -> bytes:
        return json.dumps(self.response(), separators=(",", ":")).encode()


class _NonFinite(ValueError):
    pass


class _NumberTooLong(ValueError):
    pass


def _reject_constant(name: str) -> Any:
    raise _NonFinite(name)


def _bounded_int(text: str) -> int:
    if len(text) > MAX_NUMBER_CHARS:
        raise _NumberTooLong(text[:20])
    return int(text)


def _bounded_float(text: str) -> float:
    if len(text) > MAX_NUMBER_CHARS:
        raise _NumberTooLong(text[:20])
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise _NonFinite(text[:20])  # 1e999 overflows to Infinity: not a number JSON can carry back
    return value


def nesting_depth(value: Any, limit: int) -> int:
    """The nesting depth of `value` (a scalar is 0), counting no further than `limit + 1`."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            depth += 1
            deepest = max(deepest, depth)
            if deepest > limit:
                return deepest
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth) for child in children)
    return deepest


def check_message(text: str | bytes) -> tuple[Any, Rejection | None]:
    """Parse one JSON-RPC message strictly: `(parsed, None)`, or `(None, why it is refused)`."""
    try:
        parsed = json.loads(text, parse_constant=_reject_constant, parse_int=_bounded_int,
                            parse_float=_bounded_float)
    except _NonFinite:
        return None, Rejection(PARSE_ERROR, "Parse error: NaN and Infinity are not JSON numbers",
                               {"reason": "non_finite_number"})
    except _NumberTooLong:
        return None, Rejection(
            INVALID_REQUEST, f"Invalid Request: a number literal is over {MAX_NUMBER_CHARS} characters",
            {"reason": "number_too_long", "limit": MAX_NUMBER_CHARS})
    except RecursionError:
        return None, _too_deep(None)
    except (ValueError, UnicodeDecodeError):  # JSONDecodeError is a ValueError
        return None, Rejection(PARSE_ERROR, "Parse error: the message is not valid JSON", {})
    if nesting_depth(parsed, MAX_NESTING) > MAX_NESTING:
        return None, _too_deep(_request_id(parsed))
    return parsed, None


def message_too_large(limit: int) -> Rejection:
    """The refusal of a message over `limit` bytes (a stdio line read no further than the limit:
    its id is unknown, so the answer's id is null)."""
    return Rejection(INVALID_REQUEST, f"Invalid Request: the message is over {limit} bytes and was discarded",
                     {"reason": "message_too_large", "limit": limit})


def _too_deep(request_id: str | int | None) -> Rejection:
    return Rejection(
        INVALID_REQUEST, f"Invalid Request: arrays and objects nest deeper than {MAX_NESTING} levels",
        {"reason": "nesting_too_deep", "limit": MAX_NESTING}, request_id)


def _request_id(parsed: Any) -> str | int | None:
    if isinstance(parsed, dict):
        candidate = parsed.get("id")
        if isinstance(candidate, str | int) and not isinstance(candidate, bool):
            return candidate
    return None


def check_parsed(value: Any, request_id: str | int | None = None) -> Rejection | None:
    """The same rules for a message another parser already read (the SDK's, on stdio).

    A float that is not finite came from `NaN`/`Infinity` (or an overflowing literal such as
    `1e999`); an integer of more than `MAX_NUMBER_CHARS` digits came from an over-long literal.
    (An over-long *float* literal is rounded by the parser and cannot be told apart.)
    """
    largest = 10**MAX_NUMBER_CHARS
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return Rejection(PARSE_ERROR, "Parse error: NaN and Infinity are not JSON numbers",
                             {"reason": "non_finite_number"}, request_id)
        if isinstance(item, int) and not isinstance(item, bool) and abs(item) >= largest:
            return Rejection(
                INVALID_REQUEST, f"Invalid Request: a number literal is over {MAX_NUMBER_CHARS} characters",
                {"reason": "number_too_long", "limit": MAX_NUMBER_CHARS}, request_id)
        if isinstance(item, dict | list):
            if depth + 1 > MAX_NESTING:
                return _too_deep(request_id)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return None


def classify_parser_error(error: Exception) -> Rejection | None:
    """The JSON-RPC error for a line the SDK's parser refused (`error` is what it raised).

    None for a blank line (nothing was sent). The line, which pydantic keeps in the error, is
    read again strictly, so a number or nesting beyond the SDK parser's own limits (which it
    calls invalid JSON) is told apart from text that is not JSON; valid JSON that is not a
    JSON-RPC message at all (`[1]`, `{"a": 1}`) is -32600.
    """
    try:
        details = list(error.errors())  # type: ignore[attr-defined]
    except Exception:
        details = []
    if not details:
        return Rejection(PARSE_ERROR, "Parse error: the message is not valid JSON", {})
    line = details[0].get("input")
    if details[0].get("type") != "json_invalid":  # parsed, but not a JSON-RPC message
        return check_parsed(line, _request_id(line)) or Rejection(
            INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 request, notification or response",
            {"reason": "not_jsonrpc"}, _request_id(line))
    if not isinstance(line, str | bytes):
        return Rejection(PARSE_ERROR, "Parse error: the message is not valid JSON", {})
    if not line.strip():
        return None
    parsed, rejection = check_message(line)
    if rejection is not None:
        return rejection
    return Rejection(INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 request, notification or response",
                     {"reason": "not_jsonrpc"}, _request_id(parsed))
