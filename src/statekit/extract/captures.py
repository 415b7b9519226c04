"""Module-scope names that inline functions read: constants to carry into the sandbox.

An inline function is kept as its own source text (`JsFunction.code`), so a name it reads from
the surrounding module (`const LIMIT = 3`) would be undefined where the sandbox runs it. For each
function the extractor kept, this finds the free names bound outside it: a `const` whose value
is JSON data becomes a constant; anything else (an import, a function, a `let`, a const holding
a call) is reported with why it cannot be carried, so that reading it fails naming it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from tree_sitter import Node

from statekit.extract.syntax import text
from statekit.extract.values import _FUNCTION_SCOPES, _SCOPE_TYPES, Evaluator, _parameter_names

_NAME_TYPES = frozenset({"identifier", "shorthand_property_identifier"})


def module_scope(evaluator: Evaluator, functions: Iterable[Node]) -> dict[str, dict[str, Any]]:
    """`{"constants": {name: value}, "unavailable": {name: reason}}` for what `functions` read."""
    constants: dict[str, Any] = {}
    unavailable: dict[str, str] = {}
    for function in functions:
        for name, at in _free_names(evaluator, function):
            if name in constants or name in unavailable:
                continue
            binding = evaluator.binding(name, at)
            if binding is None:
                continue  # a global (Math, JSON, ...) or undeclared: the sandbox has or lacks it as JS does
            if binding.kind == "const" and binding.node is not None:
                value = evaluator.value(binding.node, name)
                if _is_data(value):
                    constants[name] = value
                else:
                    unavailable[name] = "a const whose value is not JSON data (a function, a call, a class, ...)"
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
    return scope


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
