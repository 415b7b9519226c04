"""Module-scope names that inline functions read: constants to carry into the sandbox.

An inline function is kept as its own source text (`JsFunction.code`), so a name it reads from
the surrounding module (`const LIMIT = 3`) would be undefined where the sandbox runs it. For each
function the extractor kept, this finds the free names bound outside it: a `const` whose value
is JSON data becomes a constant; anything else (an import, a function, a `let`, a const holding
a call) is reported with why it cannot be carried, so that reading it fails naming it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from tree_sitter import Node

from statekit.extract.syntax import js_text, text
from statekit.extract.values import (
    _FUNCTION_SCOPES,
    _SCOPE_TYPES,
    Evaluator,
    Frames,
    JsRef,
    _parameter_names,
)

_NAME_TYPES = frozenset({"identifier", "shorthand_property_identifier"})


def module_scope(evaluator: Evaluator, functions: Iterable[tuple[Node, Frames]]) -> dict[str, dict[str, Any]]:
    """`{"constants": {name: value}, "unavailable": {name: reason}, "closures": {source: {name:
    value}}, "logic": {name: creator}}` for what `functions` read; `logic` holds module consts made
    by XState's logic creators (`fromPromise(...)`), which inline code may hand to `spawn` and the
    engine keeps without running.

    Each function comes with the factory calls it was made in (`incrementBy(5)` returning
    `assign({count: ({ context }) => context.count + amount})`): a parameter of such a call, or
    a const declared in its body, is a closure of that function's source (`amount`: 5). The
    same source made twice with different values (`incrementBy(1)`, `incrementBy(5)`) cannot
    be told apart by the engine, which has only the source: that name is unavailable, never
    guessed. Module-level consts are constants shared by all functions.
    """
    constants: dict[str, Any] = {}
    unavailable: dict[str, str] = {}
    closures: dict[str, dict[str, Any]] = {}
    ambiguous: set[tuple[str, str]] = set()
    logic: dict[str, str] = {}
    for function, frames in functions:
        code = js_text(function)  # the source the engine gets (JsFunction.code)
        for name, at in _free_names(evaluator, function):
            binding = evaluator.binding(name, at)
            if binding is None:
                continue  # a global (Math, JSON, ...) or undeclared: the sandbox has or lacks it as JS does
            closed = binding.kind == "param" or (binding.kind == "const" and _inside_frames(binding.node, frames))
            if closed and binding.node is not None and (binding.kind == "const" or _has_argument(frames, binding.node)):
                value = (evaluator.argument(binding, name, frames) if binding.kind == "param"
                         else evaluator.value_in(frames, binding.node, name))
                if not _is_data(value):
                    unavailable[name] = _not_data(binding.kind, value)
                    continue
                own = closures.setdefault(code, {})
                if (code, name) in ambiguous:
                    continue
                if name in own and _json(own[name]) != _json(value):
                    ambiguous.add((code, name))
                    del own[name]
                    unavailable.setdefault(name, "a factory argument that differs between calls making the same "
                                                 "function (e.g. incrementBy(1) and incrementBy(5)); the engine "
                                                 "sees only the function's source, so it cannot tell them apart")
                    continue
                own[name] = value
                continue
            if name in unavailable or name in constants or name in logic:
                continue
            if binding.kind == "const" and binding.node is not None:
                value = evaluator.value_in(frames, binding.node, name)
                kind = None if _is_data(value) else _logic_kind(evaluator, binding.node)
                if _is_data(value):
                    constants[name] = value
                elif kind is not None:
                    # `const child = fromPromise(...)`: actor logic the engine keeps without running it.
                    logic[name] = kind
                else:
                    unavailable[name] = _not_data("const", value)
            elif binding.kind == "enum" and binding.node is not None:
                # A TypeScript enum is the object it compiles to (values.Evaluator._enum).
                members = evaluator.value_in(frames, binding.node.child_by_field_name("name") or binding.node, name)
                if _is_data(members):
                    constants[name] = members
                else:
                    unavailable[name] = "an enum with members statekit cannot compute"
            elif binding.kind == "import":
                unavailable[name] = f"imported from '{binding.module}'"
            elif binding.kind == "function":
                unavailable[name] = "a function declared outside the machine"
            else:
                unavailable[name] = "a let, var, parameter or class, whose value is not known before running"
    scope: dict[str, dict[str, Any]] = {}
    if constants:
        scope["constants"] = constants
    if unavailable:
        scope["unavailable"] = unavailable
    closures = {code: names for code, names in closures.items() if names}
    if closures:
        scope["closures"] = closures
    if logic:
        scope["logic"] = logic
    return scope


#: XState's creators of actor logic that a pure transition never runs (engine/sandbox.py keeps them).
_LOGIC_CREATORS = frozenset({"fromPromise", "fromCallback", "fromObservable", "fromEventObservable", "fromTransition"})


def _logic_kind(evaluator: Evaluator, node: Node) -> str | None:
    """`fromPromise` for a const whose value is `fromPromise(...)` called on XState's export;
    `custom` for an object literal that is actor logic itself (its own `transition` and
    `getInitialSnapshot` functions), which XState runs only in a started actor (creating one
    catches what `getInitialSnapshot` throws)."""
    if node.type == "object":
        return "custom" if {"transition", "getInitialSnapshot"} <= _function_members(node) else None
    if node.type != "call_expression":
        return None
    callee = node.child_by_field_name("function")
    kind = evaluator.xstate_name(callee) if callee is not None else None
    return kind if kind in _LOGIC_CREATORS else None


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _has_argument(frames: Frames, function: Node) -> bool:
    return any(frame_id == function.id for frame_id, _ in frames)


def _inside_frames(node: Node | None, frames: Frames) -> bool:
    """Whether a declaration is in the body of one of the factory calls being applied."""
    ids = {frame_id for frame_id, _ in frames}
    current = node.parent if node is not None else None
    while current is not None and ids:
        if current.id in ids:
            return True
        current = current.parent
    return False


def _not_data(kind: str, value: Any) -> str:
    if kind == "const":
        return "a const whose value is not JSON data (a function, a call, a class, ...)"
    if isinstance(value, JsRef):
        return "a let, var, parameter or class, whose value is not known before running"
    return "a parameter of the factory call that made this function, whose argument is not JSON data"


def _free_names(evaluator: Evaluator, function: Node) -> Iterator[tuple[str, Node]]:
    """Names read inside `function` and not declared inside it, with the node to resolve them at."""
    outside = function.parent if function.parent is not None else function
    for node in _descendants(function):
        if node.type not in _NAME_TYPES:  # object keys and `.property` are property_identifier
            continue
        name = text(node)
        if not _declared_between(evaluator, node, function, name):
            yield name, outside


def _declared_between(evaluator: Evaluator, node: Node, function: Node, name: str) -> bool:
    scope: Node | None = node
    while scope is not None:
        if scope.type in _SCOPE_TYPES and name in evaluator._scope_bindings(scope):
            return True
        if scope.type in _FUNCTION_SCOPES and name in _parameter_names(scope):
            return True
        if scope.type in ("for_in_statement", "for_statement", "catch_clause") and _declares(scope, name):
            return True
        if scope == function:
            return False
        scope = scope.parent
    return False


def _declares(statement: Node, name: str) -> bool:
    """Whether a loop head or catch clause declares `name` (its own scope, not a block's)."""
    for field in ("left", "initializer", "parameter"):
        part = statement.child_by_field_name(field)
        if part is not None and any(n.type == "identifier" and text(n) == name for n in _descendants(part)):
            return True
    return False


def _descendants(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.named_children))


def _is_data(value: Any) -> bool:
    if value is None or isinstance(value, str | bool | int):
        return True
    if isinstance(value, float):
        return value == value and value not in (float("inf"), float("-inf"))
    if isinstance(value, list):
        return all(_is_data(item) for item in value)
    if isinstance(value, dict):
        return all(isinstance(key, str) and _is_data(item) for key, item in value.items())
    return False


def _function_members(node: Node) -> set[str]:
    """The names of an object literal's members that are functions (`f: () => ...`, `f() {}`)."""
    names: set[str] = set()
    for member in node.named_children:
        if member.type == "method_definition":
            name = member.child_by_field_name("name")
        elif member.type == "pair":
            value = member.child_by_field_name("value")
            is_function = value is not None and value.type in ("arrow_function", "function_expression", "function")
            name = member.child_by_field_name("key") if is_function else None
        else:
            name = None
        if name is not None:
            names.add(text(name))
    return names
