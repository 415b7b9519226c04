"""Static extraction of XState machines from JavaScript / TypeScript source (never executed).

`extract_machines(code)` finds every `createMachine(...)` call — bare, on `setup({...})`, or a
member such as `xstate.createMachine` — evaluates its config statically (see `values`) and
encodes it as statekit JSON (see `config`). Syntax errors and what could not be followed are
reported in `errors` with 1-based line and column; nothing raises on bad input.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any, TypedDict

from tree_sitter import Language, Node, Query, QueryCursor

from statekit.budget import check_budget
from statekit.extract.captures import module_scope
from statekit.extract.config import (
    ConfigEncoder,
    NamedReference,
    collecting_references,
    implementations,
    looks_like_v6,
)
from statekit.extract.syntax import (
    SourceError,
    callee_of,
    member_parts,
    named,
    parse,
    position,
    syntax_errors,
    text,
    unwrap,
)
from statekit.extract.values import Evaluator, JsRef

#: Input larger than this is refused with an error rather than parsed (10 MB of source).
MAX_SOURCE_BYTES = 10_000_000
#: Call names that create a machine (XState v4's `Machine` too, as the Stately extractor does).
_MACHINE_FACTORIES = frozenset({"createMachine", "Machine"})


class ExtractedMachine(TypedDict):
    name: str
    line: int
    column: int
    xstateVersion: int
    config: Any
    implementations: dict[str, Any]


class Extraction(TypedDict):
    machines: list[ExtractedMachine]
    errors: list[SourceError]


def extract_machines(code: str, filename: str | None = None, xstate_version: int | None = None) -> Extraction:
    """Every machine in `code`, in source order, with the problems met on the way."""
    if filename is not None and filename.lower().endswith((".vue", ".svelte", ".html")):
        code = script_blocks(code)
        filename = filename + ".ts"
    source = code.encode("utf-8", "surrogatepass")
    if len(source) > MAX_SOURCE_BYTES:
        return {"machines": [], "errors": [{
            "code": "too_large", "message": f"source larger than {MAX_SOURCE_BYTES} bytes is not parsed",
            "line": 1, "column": 1,
        }]}
    tree = parse(source, filename)
    errors: list[SourceError] = syntax_errors(tree)
    evaluator = Evaluator()
    machines: list[ExtractedMachine] = []
    for call in _machine_calls(tree.root_node, tree.language, evaluator):
        before = len(evaluator.problems)
        machine = _extract_call(call, evaluator, len(machines), xstate_version)
        if machine is not None:
            machines.append(machine)
        errors.extend(evaluator.problems[before:])
    return {"machines": machines, "errors": errors}


_SCRIPT = re.compile(r"(<script\b[^>]*>)(.*?)(</script\s*>)", re.DOTALL | re.IGNORECASE)


def script_blocks(markup: str) -> str:
    """Only the `<script>` contents of a Vue / Svelte / HTML file; everything else blanked to
    spaces (newlines kept) so that lines and columns still point into the original file."""
    kept = list(re.sub(r"[^\n]", " ", markup))
    for match in _SCRIPT.finditer(markup):
        kept[match.start(2):match.end(2)] = markup[match.start(2):match.end(2)]
    return "".join(kept)


def _machine_calls(root: Node, language: Language, evaluator: Evaluator) -> list[Node]:
    """`createMachine(...)` calls in source order, found by a tree-sitter query (in C, fast)."""
    names = set(_MACHINE_FACTORIES) | _imported_aliases(root)
    query = _calls_query(language, frozenset(names))
    found = QueryCursor(query).captures(root).get("call", [])
    calls = [node for node in found if _is_machine_call(node, evaluator)]
    return sorted(calls, key=lambda node: node.start_byte)


def _imported_aliases(root: Node) -> set[str]:
    """Local names of `import { createMachine as x } from 'xstate'`."""
    aliases: set[str] = set()
    for statement in root.named_children:
        if statement.type != "import_statement" or b"createMachine" not in (statement.text or b""):
            continue
        for spec in _descendants(statement, "import_specifier"):
            imported = spec.child_by_field_name("name")
            alias = spec.child_by_field_name("alias")
            if imported is not None and alias is not None and text(imported) == "createMachine":
                aliases.add(text(alias))
    return aliases


def _descendants(node: Node, node_type: str) -> list[Node]:
    found: list[Node] = []
    stack = [node]
    while stack:
        check_budget()
        current = stack.pop()
        if current.type == node_type:
            found.append(current)
        stack.extend(current.named_children)
    return found


@lru_cache(maxsize=32)
def _calls_query(language: Language, names: frozenset[str]) -> Query:
    quoted = " ".join(json.dumps(name) for name in sorted(names))
    return Query(language, f"""
        (call_expression function: (identifier) @name (#any-of? @name {quoted})) @call
        (call_expression function: (member_expression property: (property_identifier) @prop
            (#eq? @prop "createMachine"))) @call
        (call_expression function: (parenthesized_expression (sequence_expression
            (member_expression property: (property_identifier) @prop (#eq? @prop "createMachine"))))) @call
    """)


def _is_machine_call(call: Node, evaluator: Evaluator) -> bool:
    callee = call.child_by_field_name("function")
    if callee is None:
        return False
    callee = callee_of(callee)
    if callee.type == "member_expression":
        parts = member_parts(callee)
        return parts is not None and parts[1] == "createMachine"
    if callee.type == "identifier":
        name = text(callee)
        if name in _MACHINE_FACTORIES:
            bound = evaluator.binding(name, callee)
            return bound is None or bound.kind == "import"
        return evaluator.xstate_name(callee) == "createMachine"
    return False


def _extract_call(call: Node, evaluator: Evaluator, index: int, forced_version: int | None) -> ExtractedMachine | None:
    arguments = call.child_by_field_name("arguments")
    args = named(arguments) if arguments is not None else []
    line, column = position(call)
    if not args:
        evaluator.problem(call, "no_config", "createMachine() without a config")
        return None
    first_function = len(evaluator.functions)
    config_value = evaluator.value(args[0])
    if not isinstance(config_value, dict):
        evaluator.problem(args[0], "unresolved_config",
                          f"the config {text(args[0])[:60]!r} is not an object literal statekit can see")
        return None
    setup_value: Any = _setup_argument(call, evaluator)
    if setup_value is None and len(args) > 1:
        setup_value = evaluator.value(args[1])  # createMachine(config, implementations)
    encoder = ConfigEncoder()
    with collecting_references() as references:
        config = encoder.machine(config_value)
        impls: dict[str, Any] = implementations(setup_value) if setup_value is not None else {}
        for provided in _provided(call, evaluator):  # createMachine(...).provide({...}) wins, as in XState
            for group, items in implementations(provided).items():
                base = impls.get(group)
                known = isinstance(base, dict) and "$ref" not in base and "$ref" not in items
                impls[group] = {**base, **items} if known and isinstance(base, dict) else items
    for reference in references:
        _report_reference(evaluator, reference, call)
    if encoder.inline_actors:
        impls.setdefault("actors", {}).update(encoder.inline_actors)
    if isinstance(setup_value, JsRef):
        impls["$ref"] = setup_value.name
    kept = zip(evaluator.functions[first_function:], evaluator.function_frames[first_function:], strict=True)
    scope = module_scope(evaluator, kept)
    if scope:  # module constants the inline functions read, for the sandbox (engine/inline.py)
        impls["moduleScope"] = scope
    version = forced_version if forced_version is not None else (6 if looks_like_v6(config_value) else 5)
    if version == 6 and setup_value is None:
        impls = {**implementations(config_value), **impls}  # v6: implementations live in the config
    return {
        "name": _machine_name(call, config_value, index),
        "line": line,
        "column": column,
        "xstateVersion": version,
        "config": config,
        "implementations": impls,
    }


def _provided(call: Node, evaluator: Evaluator) -> list[Any]:
    """The arguments of `.provide({...})` calls chained on the machine call, innermost first."""
    found: list[Any] = []
    node = call
    while True:
        parent = node.parent
        while parent is not None and parent.type in ("satisfies_expression", "as_expression", "parenthesized_expression",
                                                     "non_null_expression"):
            node, parent = parent, parent.parent
        if parent is None or parent.type != "member_expression":
            return found
        prop = parent.child_by_field_name("property")
        outer = parent.parent
        if prop is None or text(prop) != "provide" or outer is None or outer.type != "call_expression":
            return found
        arguments = outer.child_by_field_name("arguments")
        items = named(arguments) if arguments is not None else []
        if items:
            found.append(evaluator.value(items[0]))
        node = outer


def _report_reference(evaluator: Evaluator, reference: NamedReference, call: Node) -> None:
    """A note where an action or guard became a named reference (at the machine call when
    the expression's own position is not known)."""
    line, column = reference.at if reference.at != (0, 0) else position(call)
    shown = " ".join(reference.source.split())
    shown = shown if len(shown) <= 80 else shown[:79] + "\u2026"
    evaluator.problems.append({
        "code": "unresolved_reference",
        "message": (f"the {reference.kind} `{shown}` cannot be known without running the source (an import, a "
                    f"parameter, or a call statekit does not follow); kept as the named {reference.kind} "
                    f"'{reference.name}', to be supplied by that name"),
        "line": line,
        "column": column,
    })


def _setup_argument(call: Node, evaluator: Evaluator) -> Any:
    """The argument of the `setup(...)` that `.createMachine` is called on, if any
    (with the implementations of any `.extend({...})` in between merged over it)."""
    callee = call.child_by_field_name("function")
    if callee is None or callee_of(callee).type != "member_expression":
        return None
    target = callee_of(callee).child_by_field_name("object")
    return _setup_value(target, evaluator, 0) if target is not None else None


_IMPLEMENTATION_GROUPS = ("guards", "actions", "delays", "actors")


def _setup_value(target: Node, evaluator: Evaluator, depth: int) -> Any:
    """The implementations `target` stands for: `setup({...})`, `s.extend({...})`, or a const of one."""
    target = unwrap(target)
    if depth > 20:
        return None
    if target.type == "identifier":  # const s = setup({...}); s.createMachine(...)
        bound = evaluator.binding(text(target), target)
        if bound is None or bound.kind != "const" or bound.node is None:
            return None
        target = unwrap(bound.node)
    if target.type != "call_expression":
        return None
    setup_callee = target.child_by_field_name("function")
    setup_args = target.child_by_field_name("arguments")
    if setup_callee is None or setup_args is None:
        return None
    items = named(setup_args)
    own = evaluator.value(items[0]) if items else {}
    own = own if isinstance(own, dict) else {}
    if evaluator.xstate_name(setup_callee) == "setup":
        return own
    parts = member_parts(unwrap(setup_callee))
    if parts is None or parts[1] != "extend":
        return None
    base = _setup_value(parts[0], evaluator, depth + 1)
    if not isinstance(base, dict):
        return None
    merged = {**base, **{key: value for key, value in own.items() if key not in _IMPLEMENTATION_GROUPS}}
    for group in _IMPLEMENTATION_GROUPS:  # extend's implementations add to, and win over, the base's
        if isinstance(base.get(group), dict) or isinstance(own.get(group), dict):
            merged[group] = {**(base.get(group) or {}), **(own.get(group) or {})}
    return merged


def _machine_name(call: Node, config: dict[str, Any], index: int) -> str:
    """The variable, property or export the machine is bound to; else its id; else machineN."""
    node: Node | None = call
    while node is not None and node.parent is not None:
        parent = node.parent
        if parent.type in ("satisfies_expression", "as_expression", "parenthesized_expression",
                           "non_null_expression", "type_assertion"):
            node = parent
            continue
        if parent.type == "member_expression" or (parent.type == "call_expression" and node == parent.child_by_field_name("function")):
            node = parent  # createMachine(...).provide(...)
            continue
        if parent.type == "variable_declarator":
            name = parent.child_by_field_name("name")
            if name is not None and name.type == "identifier":
                return text(name)
        if parent.type == "pair":
            key = parent.child_by_field_name("key")
            if key is not None and key.type in ("property_identifier", "string", "number"):
                return text(key).strip("'\"")
        if parent.type in ("assignment_expression",):
            left = parent.child_by_field_name("left")
            if left is not None and left.type in ("identifier", "member_expression"):
                return text(left)
        if parent.type == "export_statement":
            return "default"
        if parent.type in ("return_statement", "arrow_function"):
            function: Node | None = parent
            while function is not None and function.type not in ("function_declaration", "arrow_function", "function_expression", "method_definition"):
                function = function.parent
            if function is not None:
                own = function.child_by_field_name("name")
                if own is not None:
                    return text(own)
                if function.parent is not None and function.parent.type == "variable_declarator":
                    declared = function.parent.child_by_field_name("name")
                    if declared is not None:
                        return text(declared)
        break
    machine_id = config.get("id")
    if isinstance(machine_id, str) and machine_id:
        return machine_id
    return f"machine{index + 1}"
