"""tree-sitter parsing of JavaScript / TypeScript source, and the small node helpers the walker uses.

The source is only parsed, never run. tree-sitter is error-tolerant: a broken file still gives a
tree (with ERROR / MISSING nodes), so extraction continues and the syntax errors are reported.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import TypedDict

import tree_sitter_javascript
import tree_sitter_typescript
from tree_sitter import Language, Node, Parser, Tree

#: Expressions that only wrap a value for the type checker or for precedence.
WRAPPERS = frozenset({
    "satisfies_expression", "as_expression", "parenthesized_expression", "non_null_expression",
    "type_assertion",
})
FUNCTION_TYPES = frozenset({
    "arrow_function", "function_expression", "function", "generator_function",
    "function_declaration", "generator_function_declaration",
})
#: At most this many syntax errors are listed (a binary file could have thousands).
MAX_SYNTAX_ERRORS = 20


class SourceError(TypedDict):
    """One problem found in the source, located 1-based (line and column)."""

    code: str
    message: str
    line: int
    column: int


@cache
def _language(name: str) -> Language:
    if name == "javascript":
        return Language(tree_sitter_javascript.language())
    if name == "tsx":
        return Language(tree_sitter_typescript.language_tsx())
    return Language(tree_sitter_typescript.language_typescript())


def _grammars_for(filename: str | None) -> tuple[str, ...]:
    """The grammars to try, best guess first: the extension decides, else TypeScript then TSX."""
    lower = (filename or "").lower()
    if lower.endswith((".tsx", ".jsx")):
        return ("tsx",)
    if lower.endswith((".ts", ".mts", ".cts")):
        return ("typescript",)
    if lower.endswith((".js", ".mjs", ".cjs", ".vue", ".svelte")):
        # JSX is common in .js files; the TSX grammar reads plain JS and JSX alike.
        return ("javascript", "tsx")
    return ("typescript", "tsx", "javascript")


def parse(source: bytes, filename: str | None = None) -> Tree:
    """Parse with the grammar that fits the file; without a hint, the one with the fewest errors."""
    best: Tree | None = None
    best_errors = -1
    for grammar in _grammars_for(filename):
        tree = Parser(_language(grammar)).parse(source)
        if not tree.root_node.has_error:
            return tree
        errors = sum(1 for _ in _error_nodes(tree.root_node))
        if best is None or errors < best_errors:
            best, best_errors = tree, errors
    assert best is not None
    return best


def _error_nodes(root: Node) -> Iterator[Node]:
    """ERROR and MISSING nodes, outermost first, without descending into error-free subtrees."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_missing or node.type == "ERROR":
            yield node
            continue
        stack.extend(child for child in reversed(node.children) if child.has_error)


def syntax_errors(tree: Tree) -> list[SourceError]:
    """Where the parser had to recover, 1-based."""
    errors: list[SourceError] = []
    for node in _error_nodes(tree.root_node):
        if len(errors) >= MAX_SYNTAX_ERRORS:
            break
        line, column = position(node)
        if node.is_missing:
            message = f"syntax error: missing {node.type!r}"
        elif _runs_to_end(node) and node.end_byte - node.start_byte > 40:
            # Recovery swallowed the rest of the file: something opened here is never closed.
            snippet = text(node)[:40].replace("\n", " ")
            message = f"syntax error: unexpected end of input; {snippet!r} is not closed"
        else:
            snippet = text(node)[:40].replace("\n", " ")
            message = f"syntax error: unexpected {snippet!r}" if snippet else "syntax error"
        errors.append({"code": "syntax_error", "message": message, "line": line, "column": column})
    return errors


def _runs_to_end(node: Node) -> bool:
    """Whether nothing follows the node in the file (it and its ancestors are last children)."""
    current: Node | None = node
    while current is not None and current.parent is not None:
        if current.next_sibling is not None:
            return False
        current = current.parent
    return True


def text(node: Node) -> str:
    """The node's source text."""
    return (node.text or b"").decode("utf-8", "replace")


#: TypeScript-only syntax: removed from a function's source, which then runs as JavaScript.
_TYPE_ONLY = frozenset({
    "type_annotation", "type_arguments", "type_parameters", "type_predicate_annotation", "asserts_annotation",
    "omitting_type_annotation", "opting_type_annotation", "adding_type_annotation", "type_alias_declaration",
    "interface_declaration",
})
_TYPE_SUFFIXED = frozenset({"as_expression", "satisfies_expression", "non_null_expression"})


#: Expressions that need no parentheses of their own once a type assertion around them goes.
_SIMPLE = frozenset({"identifier", "member_expression", "subscript_expression", "call_expression", "this", "array"})


def _drops_parentheses(expression: Node) -> bool:
    """Whether `(x as T)` / `(x satisfies T)` writes the parentheses only for the type (TypeScript
    drops them; it keeps those of `(x!)`)."""
    if expression.type not in ("as_expression", "satisfies_expression"):
        return False
    inner = named(expression)
    return bool(inner) and inner[0].type in _SIMPLE


def js_text(node: Node) -> str:
    """The node's source with TypeScript's type syntax taken out (annotations, `as T`,
    `satisfies T`, `x!`, `<T>`, `this: T` parameters, local type declarations), as the
    transpiled JavaScript XState runs has it; JavaScript comes back unchanged."""
    source = node.text or b""
    base = node.start_byte
    cuts: list[tuple[int, int]] = []
    stack = [node]
    while stack:
        current = stack.pop()
        kind = current.type
        if kind in _TYPE_ONLY:
            cuts.append((current.start_byte, current.end_byte))
            continue
        if kind == "parenthesized_expression":
            inner = named(current)
            if len(inner) == 1 and _drops_parentheses(inner[0]):
                # `(error as Error).message`: TypeScript's output is `error.message`.
                cuts.append((current.start_byte, inner[0].start_byte))
                cuts.append((inner[0].end_byte, current.end_byte))
        if kind in _TYPE_SUFFIXED:
            inner = named(current)
            if inner:
                cuts.append((inner[0].end_byte, current.end_byte))  # ` as T`, ` satisfies T`, `!`
                stack.append(inner[0])
            continue
        if kind == "required_parameter":
            pattern = current.child_by_field_name("pattern")
            if pattern is not None and pattern.type == "this":
                after = current.next_sibling
                end = after.end_byte if after is not None and after.type == "," else current.end_byte
                cuts.append((current.start_byte, end))
                continue
        if kind == "optional_parameter":
            cuts.extend((child.start_byte, child.end_byte) for child in current.children
                        if not child.is_named and child.type == "?")
        stack.extend(current.named_children)
    if not cuts:
        return text(node)
    kept: list[bytes] = []
    at = base
    for start, end in sorted(cuts):
        if start < at:
            continue  # inside a part already cut
        kept.append(source[at - base:start - base])
        at = end
    kept.append(source[at - base:])
    return b"".join(kept).decode("utf-8", "replace")


def position(node: Node) -> tuple[int, int]:
    """1-based line and column of the node's start (the column counts UTF-8 bytes, as tree-sitter does)."""
    row, byte_column = node.start_point
    return row + 1, byte_column + 1


def unwrap(node: Node) -> Node:
    """The expression inside `(...)`, `x as T`, `x satisfies T`, `x!` and `<T>x`."""
    while node.type in WRAPPERS:
        inner = [child for child in node.named_children if child.type != "comment"]
        if not inner:
            break
        # `<T>x` has the type first; every other wrapper has the expression first.
        node = inner[-1] if node.type == "type_assertion" else inner[0]
    return node


def callee_of(node: Node) -> Node:
    """A call's callee as written by hand: `(0, xstate_1.assign)`, which TypeScript's CommonJS
    output calls an import with (so that `this` is undefined), is `xstate_1.assign`."""
    node = unwrap(node)
    while node.type == "sequence_expression":
        parts = named(node)
        if not parts:
            break
        node = unwrap(parts[-1])
    return node


def member_parts(node: Node) -> tuple[Node, str] | None:
    """The object and the property name of `object.property` (None: not a member expression)."""
    if node.type != "member_expression":
        return None
    target = node.child_by_field_name("object")
    prop = node.child_by_field_name("property")
    if target is None or prop is None:
        return None
    return target, text(prop)


def named(node: Node) -> list[Node]:
    """Named children without comments."""
    return [child for child in node.named_children if child.type != "comment"]


def string_value(node: Node) -> str | None:
    """The value of a string literal or a template literal without substitutions."""
    if node.type == "string":
        return "".join(string_part(child) for child in node.named_children)
    if node.type == "template_string":
        if any(child.type == "template_substitution" for child in node.named_children):
            return None
        return "".join(string_part(child) for child in node.named_children)
    return None


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


def string_part(node: Node) -> str:
    raw = text(node)
    if node.type != "escape_sequence":
        return raw
    body = raw[1:]
    if body in _ESCAPES:
        return _ESCAPES[body]
    if body.startswith("u{") and body.endswith("}"):
        return chr(int(body[2:-1], 16))
    if body.startswith("u") and len(body) == 5:
        return chr(int(body[1:], 16))
    if body.startswith("x") and len(body) == 3:
        return chr(int(body[1:], 16))
    if body.startswith(("\r\n", "\n")):
        return ""  # a line continuation
    return body
