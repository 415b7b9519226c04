"""The small, safe subset of ECMAScript that SCXML conversion understands (never evaluated).

SCXML writes guards and values as ECMAScript expressions. statekit never runs them; it
recognises a fixed grammar that maps onto the model and keeps everything else as text:

* literals: JSON values and single-quoted strings (`'pass'`) -> static values;
* guards: `name`, `name(<JSON params>)`, `In('id')`, `!g`, `g && g`, `g || g`, `(g)`
  -> named guards, `xstate.stateIn`, `xstate.not` / `xstate.and` / `xstate.or`;
* named action calls in `<script>`: `name()` or `name(<JSON params>)`.

The same grammar is what the writer produces, so the mapping is a bijection on it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_RESERVED = frozenset({"true", "false", "null", "undefined", "In", "typeof", "new", "this", "void", "delete", "in"})
_DECODER = json.JSONDecoder()
_CALL = re.compile(r"^\s*([A-Za-z_$][\w$]*)\s*\((.*)\)\s*;?\s*$", re.DOTALL)
_SINGLE_QUOTED = re.compile(r"^'((?:[^'\\]|\\.)*)'$", re.DOTALL)
_DELAY = re.compile(r"^\s*(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|m|h|d)?\s*$")
_DELAY_UNITS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}


@dataclass(frozen=True)
class Literal:
    """A parsed static value (a wrapper so that `None` can be a value)."""

    value: Any


def parse_literal(expr: str | None) -> Literal | None:
    """The static value of `expr`, or None when it is not a literal."""
    if expr is None:
        return None
    text = expr.strip()
    if not text:
        return None
    quoted = _SINGLE_QUOTED.match(text)
    if quoted:
        body = quoted.group(1).replace("\\'", "'").replace('"', '\\"')
        try:
            return Literal(json.loads(f'"{body}"'))
        except ValueError:
            return None
    try:
        return Literal(json.loads(text))
    except (ValueError, RecursionError):
        return None


def literal_expr(value: Any) -> str:
    """An ECMAScript expression for a static JSON value."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def parse_delay_ms(text: str | None) -> int | float | None:
    """A CSS2 time (`1s`, `500ms`, `.5s`, bare number = ms) in milliseconds, or None."""
    if text is None:
        return None
    match = _DELAY.match(text)
    if not match:
        return None
    amount = float(match.group(1)) * _DELAY_UNITS[match.group(2) or "ms"]
    return int(amount) if amount.is_integer() else amount


def format_delay(ms: int | float) -> str:
    if isinstance(ms, float) and ms.is_integer():
        ms = int(ms)
    return f"{ms}ms"


#: Event families the platform raises per state or actor (done.state.<id>, done.invoke.<id>,
#: xstate.after..., xstate.error.actor...): matched by their own mapping, not by prefix.
_PLATFORM_FAMILIES = ("done.", "xstate.")


def prefix_conflicts(descriptors: set[str], names: set[str]) -> list[tuple[str, str]]:
    """(descriptor, name) pairs where SCXML's prefix matching and XState's exact matching differ:
    an exact descriptor `a` and an event name `a.b`, which SCXML `a` matches and XState `a` does not."""
    result = []
    for descriptor in sorted(descriptors):
        if descriptor == "*" or descriptor.endswith(".*") or descriptor.startswith(_PLATFORM_FAMILIES):
            continue
        for name in sorted(names):
            if name.startswith(descriptor + ".") and not name.endswith("*"):
                result.append((descriptor, name))
                break
    return result


def parse_call(text: str) -> tuple[str, Literal | None] | None:
    """`name()` / `name(<JSON>)` -> (name, params literal or None), else None."""
    match = _CALL.match(text)
    if not match or match.group(1) in _RESERVED:
        return None
    args = match.group(2).strip()
    if not args:
        return match.group(1), None
    try:
        return match.group(1), Literal(json.loads(args))
    except (ValueError, RecursionError):
        return None


def call_expr(name: str, params: Any, has_params: bool) -> str:
    return f"{name}({literal_expr(params)})" if has_params else f"{name}()"


# --- guards -----------------------------------------------------------------------------
# A guard is returned as plain XState guard config data (what `parse_guard` reads), with
# `In('id')` given back as ("in", id) so the caller can map SCXML ids to state ids.


class _GuardSyntaxError(Exception):
    pass


class _GuardParser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.state_refs: list[str] = []

    def _skip(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def _take(self, token: str) -> bool:
        self._skip()
        if self.text.startswith(token, self.pos):
            self.pos += len(token)
            return True
        return False

    def parse(self) -> Any:
        result = self._or()
        self._skip()
        if self.pos != len(self.text):
            raise _GuardSyntaxError
        return result

    def _or(self) -> Any:
        operands = [self._and()]
        while self._take("||"):
            operands.append(self._and())
        return operands[0] if len(operands) == 1 else {"type": "xstate.or", "guards": operands}

    def _and(self) -> Any:
        operands = [self._unary()]
        while self._take("&&"):
            operands.append(self._unary())
        return operands[0] if len(operands) == 1 else {"type": "xstate.and", "guards": operands}

    def _unary(self) -> Any:
        self._skip()
        if self.text.startswith("!", self.pos) and not self.text.startswith("!=", self.pos):
            self.pos += 1
            return {"type": "xstate.not", "guard": self._unary()}
        if self._take("("):
            start = self.pos
            try:
                inner = self._or()
                if self._take(")"):
                    return inner
            except _GuardSyntaxError:
                pass
            # A parenthesized expression outside the grammar is one opaque condition, so that
            # `isOk && (x > 1)` stays a combination of a named guard and an expression.
            end = _closing_paren(self.text, start)
            if end < 0:
                raise _GuardSyntaxError
            self.pos = end + 1
            return {"type": "scxml.cond", "params": {"expr": self.text[start:end].strip()}}
        return self._atom()

    def _atom(self) -> Any:
        self._skip()
        match = _IDENT.match(self.text, self.pos)
        if not match:
            raise _GuardSyntaxError
        name = match.group(0)
        self.pos = match.end()
        if name == "In":
            if not self._take("("):
                raise _GuardSyntaxError
            self._skip()
            state = self._string()
            if not self._take(")"):
                raise _GuardSyntaxError
            self.state_refs.append(state)
            return {"type": "xstate.stateIn", "state": ("in", state)}
        if name in _RESERVED:
            raise _GuardSyntaxError
        self._skip()
        if self.text.startswith("(", self.pos):
            self.pos += 1
            self._skip()
            if self._take(")"):
                return {"type": name, "params": None}
            try:
                params, end = _DECODER.raw_decode(self.text, self.pos)
            except ValueError:
                raise _GuardSyntaxError from None
            self.pos = end
            if not self._take(")"):
                raise _GuardSyntaxError
            return {"type": name, "params": params}
        # A bare name must not be followed by more expression syntax (`a == 1`, `a.b`).
        if self.pos < len(self.text) and self.text[self.pos] not in " \t\r\n)&|":
            raise _GuardSyntaxError
        return name

    def _string(self) -> str:
        quote = self.text[self.pos: self.pos + 1]
        if quote not in ("'", '"'):
            raise _GuardSyntaxError
        end = self.text.find(quote, self.pos + 1)
        if end < 0:
            raise _GuardSyntaxError
        value = self.text[self.pos + 1: end]
        self.pos = end + 1
        return value


def _closing_paren(text: str, start: int) -> int:
    """The index of the `)` closing a `(` just before `start` (quotes respected), or -1."""
    depth, quote, index = 1, "", start
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return index
        index += 1
    return -1


def parse_guard_expr(text: str) -> Any | None:
    """Guard config data for `text` in the grammar above (stateIn as ("in", id)), else None."""
    if len(text) > 10_000:
        return None
    try:
        return _GuardParser(text).parse()
    except (_GuardSyntaxError, RecursionError):
        return None
