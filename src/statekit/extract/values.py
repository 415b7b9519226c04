"""Static evaluation of JavaScript expressions into plain values, without running anything.

Literals, object and array literals (spreads included), constant arithmetic and references to
`const` declarations in scope become Python data. Functions stay functions: `JsFunction` keeps
their source and the name JavaScript would infer for them (`entry: () => {}` is named "entry",
`const f = () => {}` is "f", an array item is ""), because XState reports inline actions by that
name. Calls of XState's built-ins (`assign`, `raise`, `and`, ...) become `BuiltinCall`; imports
and parameters become `JsRef`; anything else is kept as its source (`JsExpr`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tree_sitter import Node

from statekit.budget import check_budget
from statekit.extract.syntax import (
    FUNCTION_TYPES,
    SourceError,
    callee_of,
    js_text,
    member_parts,
    named,
    position,
    string_part,
    string_value,
    text,
    unwrap,
)

#: Nesting deeper than this is reported instead of followed (no recursion error on hostile input).
MAX_DEPTH = 120
#: XState exports whose calls statekit encodes as data (the rest of `xstate` is kept as source).
XSTATE_BUILTINS = frozenset({
    "assign", "raise", "sendTo", "sendParent", "forwardTo", "emit", "log", "cancel", "spawnChild",
    "stopChild", "stop", "enqueueActions", "and", "or", "not", "stateIn",
})
#: The action helpers a `setup({...})` result offers (XState's own built-ins, bound for typing).
SETUP_ACTION_HELPERS = frozenset({
    "assign", "sendTo", "raise", "log", "cancel", "stopChild", "enqueueActions", "emit", "spawnChild",
})
#: `setup({...})` methods that return their argument unchanged (XState: `fn => fn`, `config => config`).
SETUP_IDENTITY_HELPERS = frozenset({"createAction", "createStateConfig"})


@dataclass(frozen=True, slots=True)
class JsFunction:
    """A function kept as source (TypeScript types taken out), with the name JavaScript infers for it."""

    name: str
    code: str


@dataclass(frozen=True, slots=True)
class JsRef:
    """A name statekit cannot see the value of: an import, a parameter, a `let`."""

    name: str
    #: 1-based (line, column) where the source reads it, (0, 0) when unknown.
    at: tuple[int, int] = field(default=(0, 0), compare=False)


@dataclass(frozen=True, slots=True)
class JsExpr:
    """An expression that is not data (a call, `new Date()`, ...), kept as source."""

    code: str
    at: tuple[int, int] = field(default=(0, 0), compare=False)
    #: For a child machine written in place (`createMachine({...})`): XState's definition of it
    #: (`statekit.extract.definition`), or why statekit cannot render it (a string).
    definition: dict[str, Any] | str | None = field(default=None, compare=False)


def _expr(node: Node, limit: int | None = None) -> JsExpr:
    source = text(node)
    return JsExpr(source if limit is None else source[:limit], position(node))


@dataclass(frozen=True, slots=True)
class BuiltinCall:
    """A call of an XState built-in (`assign(...)`, `and([...])`) with its evaluated arguments."""

    name: str
    args: tuple[Any, ...]
    code: str


class _Undefined:
    """JavaScript's `undefined` (JSON drops it from objects)."""

    def __repr__(self) -> str:
        return "undefined"


UNDEFINED = _Undefined()


@dataclass(frozen=True, slots=True)
class Binding:
    """What a name is bound to in some scope."""

    kind: str  # "const", "function", "import", "param" (node: the function), "enum", "class", "opaque"
    node: Node | None = None
    module: str = ""
    imported: str = ""


_SCOPE_TYPES = frozenset({"program", "statement_block", "class_body", "switch_body"})
_FUNCTION_SCOPES = FUNCTION_TYPES | {"method_definition"}
#: A factory applied inside another deeper than this is left as the call it is.
MAX_APPLICATIONS = 16

#: The arguments of the user functions being applied (`incrementBy(5)`): one frame per call,
#: `(id of the function node, {parameter name: argument value})`, innermost last.
Frames = tuple[tuple[int, dict[str, Any]], ...]


class Evaluator:
    """Evaluates expressions of one parsed file; collects what it could not follow in `problems`."""

    def __init__(self) -> None:
        self.problems: list[SourceError] = []
        self._scopes: dict[int, dict[str, Binding]] = {}
        self._const_values: dict[int, Any] = {}
        self._resolving: set[int] = set()
        #: Every function kept as source, in order (their module-scope reads: `captures.py`),
        #: and beside each the factory arguments it closes over (`function_frames`).
        self.functions: list[Node] = []
        self.function_frames: list[Frames] = []
        self._frames: Frames = ()

    # -- problems ---------------------------------------------------------------------------

    def problem(self, node: Node, code: str, message: str) -> None:
        line, column = position(node)
        self.problems.append({"code": code, "message": message, "line": line, "column": column})

    # -- scopes -----------------------------------------------------------------------------

    def binding(self, name: str, at: Node) -> Binding | None:
        """The binding `name` has at `at`: the nearest enclosing declaration or parameter."""
        scope: Node | None = at
        while scope is not None:
            if scope.type in _SCOPE_TYPES:
                found = self._scope_bindings(scope).get(name)
                if found is not None:
                    return found
            elif scope.type in _FUNCTION_SCOPES and name in _parameter_names(scope):
                return Binding("param", scope)
            scope = scope.parent
        return None

    def keep_function(self, node: Node) -> None:
        """Record a function kept as source, with the factory arguments it closes over."""
        self.functions.append(node)
        self.function_frames.append(self._frames)

    def value_in(self, frames: Frames, node: Node, name: str = "") -> Any:
        """`value(node)` as it is inside the factory calls `frames` (a closure's view)."""
        saved = self._frames
        self._frames = frames
        try:
            return self.value(node, name)
        finally:
            self._frames = saved

    def argument(self, binding: Binding, name: str, frames: Frames | None = None, at: tuple[int, int] = (0, 0)) -> Any:
        """The argument a factory call being applied (or one of `frames`) passed for parameter
        `name`; a reference when the parameter is not of such a call."""
        function_id = binding.node.id if binding.node is not None else -1
        for frame_id, values in reversed(self._frames if frames is None else frames):
            if frame_id == function_id and name in values:
                return values[name]
        return JsRef(name, at)

    def _scope_bindings(self, scope: Node) -> dict[str, Binding]:
        cached = self._scopes.get(scope.id)
        if cached is not None:
            return cached
        bindings: dict[str, Binding] = {}
        for statement in named(scope):
            _declare(statement, bindings)
        self._scopes[scope.id] = bindings
        return bindings

    def xstate_name(self, callee: Node) -> str | None:
        """The XState export a callee refers to (`assign`, `xstate.assign`, an alias, CommonJS's
        `(0, xstate_1.assign)` of `const xstate_1 = require("xstate")`), if any."""
        callee = callee_of(callee)
        if callee.type == "identifier":
            name = text(callee)
            bound = self.binding(name, callee)
            if bound is None:
                # A snippet without imports: the usual names are XState's.
                return name
            if bound.kind == "import" and _is_xstate(bound.module):
                return bound.imported
            return None
        parts = member_parts(callee)
        if parts is not None:
            obj, prop = parts
            if unwrap(obj).type != "identifier":
                return None
            name = text(unwrap(obj))
            bound = self.binding(name, obj)
            if (bound is None and name in ("xstate", "XState")) or (
                bound is not None and bound.kind == "import" and _is_xstate(bound.module) and bound.imported in ("*", "default")
            ):
                return prop
        return None

    # -- values -----------------------------------------------------------------------------

    def value(self, node: Node, name: str = "", depth: int = 0) -> Any:
        """The value of an expression; `name` is the name an anonymous function would get."""
        check_budget()  # per expression: extracting from a huge source stops with the call
        node = unwrap(node)
        if depth > MAX_DEPTH:
            self.problem(node, "too_deep", f"nesting deeper than {MAX_DEPTH} levels is not followed")
            return _expr(node, 200)
        kind = node.type
        handler = _HANDLERS.get(kind)
        if handler is not None:
            return handler(self, node, name, depth)
        if kind in FUNCTION_TYPES:
            own = node.child_by_field_name("name")
            self.keep_function(node)
            return JsFunction(text(own) if own is not None else name, js_text(node))
        literal = string_value(node)
        if literal is not None:
            return literal
        return _expr(node)

    def _identifier(self, node: Node, name: str, depth: int) -> Any:
        ident = text(node)
        if ident == "undefined":
            return UNDEFINED
        if ident in ("NaN", "Infinity"):
            return math.nan if ident == "NaN" else math.inf
        bound = self.binding(ident, node)
        if bound is not None and bound.kind == "param":
            return self.argument(bound, ident, at=position(node))
        if bound is None or bound.kind in ("import", "opaque", "class") or bound.node is None:
            return JsRef(ident, position(node))
        if bound.kind == "function":
            self.keep_function(bound.node)
            return JsFunction(ident, js_text(bound.node))
        if bound.kind == "enum":
            return self._enum(bound.node, depth)
        key = bound.node.id
        # Inside a factory call a const may depend on its arguments: not cached there.
        cache = not self._frames
        if cache and key in self._const_values:
            return self._const_values[key]
        if key in self._resolving:
            self.problem(node, "circular_reference", f"{ident!r} refers to itself")
            return JsRef(ident, position(node))
        self._resolving.add(key)
        try:
            resolved = self.value(bound.node, ident, depth + 1)
        finally:
            self._resolving.discard(key)
        if cache:
            self._const_values[key] = resolved
        return resolved

    def _enum(self, node: Node, depth: int) -> dict[str, Any]:
        """A TypeScript enum as the object it compiles to: each member's value (string or number;
        a member without initializer is the previous number plus one, from 0) and, for numeric
        members, the reverse mapping from the number's text to the name."""
        cached = self._const_values.get(node.id)
        if isinstance(cached, dict):
            return cached
        members: dict[str, Any] = {}
        body = node.child_by_field_name("body")
        following: int | float | None = 0  # None: after a string member (TypeScript needs an initializer)
        for member in named(body) if body is not None else []:
            value_node = member.child_by_field_name("value") if member.type == "enum_assignment" else None
            name_node = member.child_by_field_name("name") if member.type == "enum_assignment" else member
            name = _key_text(name_node) if name_node is not None else None
            if name is None:
                continue
            value = self.value(value_node, "", depth + 1) if value_node is not None else following
            if isinstance(value, int | float) and not isinstance(value, bool):
                members[_js_string(value)] = name  # TypeScript's reverse mapping of numeric members
                following = value + 1
            else:
                following = None
            members[name] = value if isinstance(value, str | int | float) else JsRef(name, position(member))
        self._const_values[node.id] = members
        return members

    def _object(self, node: Node, _name: str, depth: int) -> Any:
        result: dict[str, Any] = {}
        for member in named(node):
            kind = member.type
            if kind == "pair":
                key = self._key(member.child_by_field_name("key"), depth, _name)
                value_node = member.child_by_field_name("value")
                if key is None or value_node is None:
                    continue
                result[key] = self.value(value_node, key, depth + 1)
            elif kind == "shorthand_property_identifier":
                key = text(member)
                result[key] = self._identifier(member, key, depth + 1)
            elif kind == "method_definition":
                key = self._key(member.child_by_field_name("name"), depth)
                if key is not None:
                    self.keep_function(member)
                    result[key] = JsFunction(key, js_text(member))
            elif kind == "spread_element":
                spread = self.value(named(member)[0], "", depth + 1) if named(member) else None
                if isinstance(spread, dict):
                    result.update(spread)
                elif spread is not None and spread is not UNDEFINED:
                    self.problem(member, "unresolved_spread", f"cannot see what {text(member)!r} spreads; left out")
        return result

    def _key(self, key_node: Node | None, depth: int, within: str = "") -> str | None:
        """The key's text; a computed key statekit cannot compute is left out with a problem
        (`unresolved_state` when it names a state, under `states`: the state tree is then unknown)."""
        if key_node is None:
            return None
        kind = key_node.type
        if kind in ("property_identifier", "private_property_identifier"):
            return text(key_node)
        if kind == "number":
            return _js_string(_number(text(key_node)))
        if kind == "computed_property_name":
            inner = named(key_node)
            computed = self.value(inner[0], "", depth + 1) if inner else None
            if isinstance(computed, str | int | float) and not isinstance(computed, bool):
                return _js_string(computed)
            if within == "states":
                self.problem(key_node, "unresolved_state", f"cannot compute the state name {text(key_node)!r}; "
                             "the machine's states cannot be known statically")
            else:
                self.problem(key_node, "unresolved_key", f"cannot compute the key {text(key_node)!r}; left out")
            return None
        literal = string_value(key_node)
        return literal if literal is not None else text(key_node)

    def _array(self, node: Node, _name: str, depth: int) -> Any:
        items: list[Any] = []
        for element in named(node):
            if element.type == "spread_element":
                spread = self.value(named(element)[0], "", depth + 1) if named(element) else None
                if isinstance(spread, list):
                    items.extend(spread)
                else:
                    self.problem(element, "unresolved_spread", f"cannot see what {text(element)!r} spreads; left out")
            else:
                items.append(self.value(element, "", depth + 1))
        return items

    def is_setup(self, node: Node, depth: int = 0) -> bool:
        """Whether `node` is the result of `setup({...})`: the call, `s.extend({...})` of one,
        or a const holding one."""
        node = unwrap(node)
        if depth > 20:
            return False
        if node.type == "identifier":
            bound = self.binding(text(node), node)
            return bound is not None and bound.kind == "const" and bound.node is not None and self.is_setup(bound.node, depth + 1)
        if node.type != "call_expression":
            return False
        callee = node.child_by_field_name("function")
        if callee is None:
            return False
        if self.xstate_name(callee) == "setup":
            return True
        parts = member_parts(unwrap(callee))
        return parts is not None and parts[1] == "extend" and self.is_setup(parts[0], depth + 1)

    def _setup_helper(self, callee: Node) -> str | None:
        """`assign`, `createAction`, ... when `callee` is that method of a `setup({...})` result."""
        parts = member_parts(callee_of(callee))
        if parts is None:
            return None
        target, name = parts
        if name not in SETUP_ACTION_HELPERS and name not in SETUP_IDENTITY_HELPERS:
            return None
        return name if self.is_setup(target) else None

    def _call(self, node: Node, _name: str, depth: int) -> Any:
        callee = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        if callee is None or arguments is None or arguments.type != "arguments":
            return _expr(node)
        helper = self._setup_helper(callee)
        if helper in SETUP_IDENTITY_HELPERS:
            # `createAction(fn)` is `fn`: an arrow passed as an argument has no inferred name.
            items = named(arguments)
            return self.value(items[0], "", depth + 1) if items else UNDEFINED
        builtin = helper if helper is not None else self.xstate_name(callee)
        if builtin in XSTATE_BUILTINS:
            args = tuple(self.value(arg, "", depth + 1) for arg in named(arguments))
            return BuiltinCall(builtin, args, text(node))
        factory = self._user_function(callee)
        if factory is not None:
            return self._apply(factory, node, named(arguments), depth)
        computed = self._pure_builtin(callee, named(arguments), depth)
        if computed is None and builtin == "createMachine":
            return self._child_machine(node, named(arguments), depth)
        return _expr(node) if computed is None else computed

    def _child_machine(self, node: Node, arguments: list[Node], depth: int) -> JsExpr:
        """`createMachine({...})` as a value (a child machine given to `spawnChild`): kept as
        source, with its definition as XState shows it. Its config is evaluated here as well as
        where the machine itself is extracted, so what this records is taken back."""
        from statekit.extract.definition import Unrenderable, machine_definition

        kept = (len(self.problems), len(self.functions), len(self.function_frames))
        try:
            config = self.value(arguments[0], "", depth + 1) if arguments else UNDEFINED
            definition: dict[str, Any] | str = machine_definition(config)
        except Unrenderable as error:
            definition = str(error)
        finally:
            del self.problems[kept[0]:], self.functions[kept[1]:], self.function_frames[kept[2]:]
        expression = _expr(node)
        return JsExpr(expression.code, expression.at, definition)

    def _pure_builtin(self, callee: Node, arguments: list[Node], depth: int) -> Any:
        """`Math.floor(...)`-style calls on numbers and `Array(n).fill(value)`, which configs use
        for their initial data and which give the same value however often they run; None else."""
        parts = member_parts(callee_of(callee))
        if parts is None:
            return None
        obj, method = unwrap(parts[0]), parts[1]
        if obj.type == "identifier" and text(obj) == "Math" and self.binding("Math", obj) is None:
            values = [self.value(arg, "", depth + 1) for arg in arguments]
            if method in _MATH and all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
                try:
                    return _normal_number(_MATH[method](*values))
                except (TypeError, ValueError, OverflowError, ZeroDivisionError):
                    return None
            return None
        if method == "fill" and obj.type in ("call_expression", "new_expression") and len(arguments) == 1:
            maker = obj.child_by_field_name("function") or obj.child_by_field_name("constructor")
            sized = obj.child_by_field_name("arguments")
            if maker is None or sized is None or text(maker) != "Array" or self.binding("Array", maker) is not None:
                return None
            size = [self.value(arg, "", depth + 1) for arg in named(sized)]
            value = self.value(arguments[0], "", depth + 1)
            sized_ok = len(size) == 1 and isinstance(size[0], int) and not isinstance(size[0], bool) and 0 <= size[0] <= MAX_FILL
            if sized_ok and (value is None or isinstance(value, str | int | float | bool)):
                return [value] * size[0]  # a primitive: an object would be one shared reference
        return None

    def _user_function(self, callee: Node) -> Node | None:
        """The function a callee names when it is declared in this file: `f`, or `obj.f` of a
        const object literal (an action or guard factory such as `incrementBy`)."""
        callee = callee_of(callee)
        if callee.type == "identifier":
            bound = self.binding(text(callee), callee)
            if bound is None or bound.node is None or bound.kind not in ("function", "const"):
                return None
            target = unwrap(bound.node)
            return target if target.type in FUNCTION_TYPES else None
        parts = member_parts(callee)
        if parts is None:
            return None
        obj, prop = parts
        if unwrap(obj).type == "this":  # `this.factory()` in a class: its method or field
            owner = _enclosing_class(unwrap(obj))
            return _class_member(owner, prop, static=False) if owner is not None else None
        if unwrap(obj).type != "identifier":
            return None
        bound = self.binding(text(unwrap(obj)), obj)
        if bound is not None and bound.kind == "class" and bound.node is not None:
            return _class_member(bound.node, prop, static=True)  # `Sdk.factory()`
        if bound is None or bound.kind != "const" or bound.node is None or unwrap(bound.node).type != "object":
            return None
        for member in named(unwrap(bound.node)):
            if member.type == "method_definition" and _key_text(member.child_by_field_name("name")) == prop:
                return member
            value = member.child_by_field_name("value") if member.type == "pair" else None
            if value is not None and _key_text(member.child_by_field_name("key")) == prop:
                target = unwrap(value)
                return target if target.type in FUNCTION_TYPES else None
        return None

    def _apply(self, function: Node, call: Node, arguments: list[Node], depth: int) -> Any:
        """The value a factory call returns, when its body is one returned expression (after
        consts) and its parameters are plain names, defaults or `{ a, b }` patterns. The
        arguments are evaluated here; functions in the result close over them (`captures`)."""
        body = _returned_expression(function)
        if body is None or len(self._frames) >= MAX_APPLICATIONS or any(fid == function.id for fid, _ in self._frames):
            return _expr(call)
        values = [self.value(arg, "", depth + 1) for arg in arguments]
        bound = _bind_parameters(function, values, lambda node: self.value(node, "", depth + 1))
        if bound is None:
            return _expr(call)
        saved = self._frames
        self._frames = (*saved, (function.id, bound))
        try:
            result = self.value(body, "", depth + 1)
        finally:
            self._frames = saved
        return _expr(call) if isinstance(result, JsExpr) else result

    def _member(self, node: Node, _name: str, depth: int) -> Any:
        obj_node = node.child_by_field_name("object")
        prop = node.child_by_field_name("property") or node.child_by_field_name("index")
        if obj_node is None or prop is None:
            return _expr(node)
        obj = self.value(obj_node, "", depth + 1)
        key = text(prop) if node.type == "member_expression" else self.value(prop, "", depth + 1)
        if isinstance(obj, dict) and isinstance(key, int | float) and not isinstance(key, bool):
            key = _js_string(key)  # `o[1]` reads the key "1" (an enum's reverse mapping)
        if isinstance(obj, dict) and isinstance(key, str):
            return obj.get(key, UNDEFINED)
        if isinstance(obj, list) and isinstance(key, int) and 0 <= key < len(obj):
            return obj[key]
        if isinstance(obj, JsRef) and isinstance(key, str):
            return JsRef(f"{obj.name}.{key}", position(node))
        return _expr(node)

    def _number(self, node: Node, _name: str, _depth: int) -> Any:
        return _number(text(node))

    def _template(self, node: Node, _name: str, depth: int) -> Any:
        parts: list[str] = []
        for child in node.named_children:
            if child.type == "template_substitution":
                inner = named(child)
                value = self.value(inner[0], "", depth + 1) if inner else None
                if isinstance(value, str | int | float) and not isinstance(value, bool):
                    parts.append(_js_string(value))
                else:
                    return _expr(node)
            else:
                parts.append(string_part(child))
        return "".join(parts)

    def _unary(self, node: Node, _name: str, depth: int) -> Any:
        operator = node.child_by_field_name("operator")
        argument = node.child_by_field_name("argument")
        if operator is None or argument is None:
            return _expr(node)
        op = text(operator)
        if op == "void":  # `void 0`, a bundler's `undefined`
            return UNDEFINED
        value = self.value(argument, "", depth + 1)
        if op == "!" and isinstance(value, bool | int | float | str):
            return not value
        if isinstance(value, int | float) and not isinstance(value, bool):
            if op == "-":
                return _normal_number(-value)
            if op == "+":
                return value
        return _expr(node)

    def _binary(self, node: Node, _name: str, depth: int) -> Any:
        left_node = node.child_by_field_name("left")
        right_node = node.child_by_field_name("right")
        operator = node.child_by_field_name("operator")
        if left_node is None or right_node is None or operator is None:
            return _expr(node)
        left = self.value(left_node, "", depth + 1)
        right = self.value(right_node, "", depth + 1)
        folded = _fold(text(operator), left, right)
        return _expr(node) if folded is None else folded

    def _constant(self, node: Node, _name: str, _depth: int) -> Any:
        return {"true": True, "false": False, "null": None, "undefined": UNDEFINED}[node.type]


_HANDLERS: dict[str, Callable[[Evaluator, Node, str, int], Any]] = {
    "identifier": Evaluator._identifier,
    "object": Evaluator._object,
    "array": Evaluator._array,
    "call_expression": Evaluator._call,
    "member_expression": Evaluator._member,
    "subscript_expression": Evaluator._member,
    "number": Evaluator._number,
    "template_string": Evaluator._template,
    "unary_expression": Evaluator._unary,
    "binary_expression": Evaluator._binary,
    "true": Evaluator._constant,
    "false": Evaluator._constant,
    "null": Evaluator._constant,
    "undefined": Evaluator._constant,
}


#: `Array(n).fill(v)` is evaluated up to this length.
MAX_FILL = 10_000


def _js_round(value: float) -> float:
    return float(math.floor(value + 0.5))


def _js_sign(value: float) -> float:
    return float((value > 0) - (value < 0))


#: Math functions JavaScript computes the same way on the numbers a config holds.
_MATH: dict[str, Callable[..., float]] = {
    "floor": lambda x: float(math.floor(x)), "ceil": lambda x: float(math.ceil(x)), "round": _js_round,
    "trunc": lambda x: float(math.trunc(x)), "abs": lambda x: float(abs(x)), "sign": _js_sign,
    "min": lambda *xs: float(min(xs)) if xs else math.inf, "max": lambda *xs: float(max(xs)) if xs else -math.inf,
    "pow": lambda x, y: float(x) ** y, "sqrt": math.sqrt,
}


_CLASS_TYPES = frozenset({"class_declaration", "abstract_class_declaration", "class"})
_FIELD_TYPES = frozenset({"public_field_definition", "field_definition"})


def _enclosing_class(this: Node) -> Node | None:
    """The class whose instance `this` is: the nearest class around it, unless a `function`
    (which has its own `this`) comes first."""
    node = this.parent
    while node is not None:
        if node.type in _CLASS_TYPES:
            return node
        if node.type in ("function_expression", "function_declaration", "generator_function",
                         "generator_function_declaration"):
            return None
        node = node.parent
    return None


def _class_member(owner: Node, prop: str, *, static: bool) -> Node | None:
    """The method or function-valued field `prop` of a class (static ones for `Class.prop`,
    instance ones for `this.prop`), as a function node `_apply` can follow."""
    body = owner.child_by_field_name("body")
    for member in named(body) if body is not None else []:
        is_static = any(child.type == "static" for child in member.children)
        if is_static != static:
            continue
        if member.type == "method_definition" and _key_text(member.child_by_field_name("name")) == prop:
            return member
        if member.type in _FIELD_TYPES:
            name = member.child_by_field_name("name") or member.child_by_field_name("property")
            value = member.child_by_field_name("value")
            if value is not None and _key_text(name) == prop and unwrap(value).type in FUNCTION_TYPES:
                return unwrap(value)
    return None


def _key_text(key: Node | None) -> str | None:
    if key is None:
        return None
    literal = string_value(key)
    return literal if literal is not None else text(key)


def _returned_expression(function: Node) -> Node | None:
    """The expression a function returns when its body is only that (consts may come first)."""
    body = function.child_by_field_name("body")
    if body is None:
        return None
    if body.type != "statement_block":
        return body  # an arrow's expression body
    statements = named(body)
    if not statements or statements[-1].type != "return_statement":
        return None
    for statement in statements[:-1]:
        keyword = statement.child(0) if statement.type == "lexical_declaration" else None
        if keyword is None or text(keyword) != "const":
            return None  # an `if`, a loop, a `let`: the result depends on running it
    returned = named(statements[-1])
    return returned[0] if returned else None


def _bind_parameters(function: Node, values: list[Any], default: Callable[[Node], Any]) -> dict[str, Any] | None:
    """Parameter name -> argument value for a call, None for a parameter shape not followed."""
    single = function.child_by_field_name("parameter")
    listed = function.child_by_field_name("parameters")
    params = [single] if single is not None else named(listed) if listed is not None else []
    bound: dict[str, Any] = {}
    for index, param in enumerate(params):
        value = values[index] if index < len(values) else UNDEFINED
        pattern = param
        fallback: Node | None = None
        if param.type in ("required_parameter", "optional_parameter"):
            pattern = param.child_by_field_name("pattern") or param
            fallback = param.child_by_field_name("value")
        elif param.type == "assignment_pattern":
            pattern = param.child_by_field_name("left") or param
            fallback = param.child_by_field_name("right")
        if value is UNDEFINED and fallback is not None:
            value = default(fallback)
        if pattern.type == "identifier":
            bound[text(pattern)] = value
        elif pattern.type == "object_pattern" and isinstance(value, dict):
            for part in named(pattern):
                if part.type != "shorthand_property_identifier_pattern":
                    return None
                bound[text(part)] = value.get(text(part), UNDEFINED)
        elif pattern.type != "this":  # `this: T` in TypeScript is a type, not a parameter
            return None
    return bound


def _is_xstate(module: str) -> bool:
    return module == "xstate" or module.startswith("xstate/")


def _declare(statement: Node, bindings: dict[str, Binding]) -> None:
    """Record the names a statement declares in its block."""
    kind = statement.type
    if kind == "export_statement":
        declaration = statement.child_by_field_name("declaration")
        if declaration is not None:
            _declare(declaration, bindings)
        return
    if kind == "lexical_declaration":
        keyword = statement.child(0)
        is_const = keyword is not None and text(keyword) == "const"
        for declarator in named(statement):
            if declarator.type != "variable_declarator":
                continue
            name_node = declarator.child_by_field_name("name")
            value_node = declarator.child_by_field_name("value")
            if name_node is not None and value_node is not None and _declare_require(name_node, value_node, bindings):
                continue
            if name_node is None or name_node.type != "identifier":
                continue
            if is_const and value_node is not None:
                bindings[text(name_node)] = Binding("const", value_node)
            else:
                bindings[text(name_node)] = Binding("opaque")
        return
    if kind == "variable_declaration":
        for declarator in named(statement):
            name_node = declarator.child_by_field_name("name")
            value_node = declarator.child_by_field_name("value")
            if name_node is not None and value_node is not None and _declare_require(name_node, value_node, bindings):
                continue
            if name_node is not None and name_node.type == "identifier":
                bindings[text(name_node)] = Binding("opaque")
        return
    if kind in ("function_declaration", "generator_function_declaration"):
        name_node = statement.child_by_field_name("name")
        if name_node is not None:
            bindings[text(name_node)] = Binding("function", statement)
        return
    if kind in ("class_declaration", "abstract_class_declaration"):
        name_node = statement.child_by_field_name("name")
        if name_node is not None:  # a value statekit does not evaluate; its static methods are followed
            bindings[text(name_node)] = Binding("class", statement)
        return
    if kind == "enum_declaration":  # TypeScript: `enum S { A = 'a' }` (and `const enum`)
        name_node = statement.child_by_field_name("name")
        if name_node is not None:
            bindings[text(name_node)] = Binding("enum", statement)
        return
    if kind == "import_statement":
        _declare_import(statement, bindings)


def _declare_require(name: Node, value: Node, bindings: dict[str, Binding]) -> bool:
    """`const x = require('m')` (a namespace) and `const { a, b: c } = require('m')` (named
    imports), as CommonJS output writes imports; False when `value` is not such a call."""
    value = unwrap(value)
    callee = value.child_by_field_name("function") if value.type == "call_expression" else None
    arguments = value.child_by_field_name("arguments") if callee is not None else None
    if callee is None or arguments is None or callee.type != "identifier" or text(callee) != "require":
        return False
    items = named(arguments)
    module = string_value(items[0]) if len(items) == 1 else None
    if module is None:
        return False
    if name.type == "identifier":
        bindings[text(name)] = Binding("import", module=module, imported="*")
        return True
    if name.type != "object_pattern":
        return False
    for part in named(name):
        if part.type == "shorthand_property_identifier_pattern":
            bindings[text(part)] = Binding("import", module=module, imported=text(part))
        elif part.type == "pair_pattern":
            key, local = part.child_by_field_name("key"), part.child_by_field_name("value")
            if key is not None and local is not None and local.type == "identifier":
                bindings[text(local)] = Binding("import", module=module, imported=string_value(key) or text(key))
    return True


def _declare_import(statement: Node, bindings: dict[str, Binding]) -> None:
    source = statement.child_by_field_name("source")
    module = (string_value(source) or "") if source is not None else ""
    for clause in named(statement):
        if clause.type != "import_clause":
            continue
        for part in named(clause):
            if part.type == "identifier":
                bindings[text(part)] = Binding("import", module=module, imported="default")
            elif part.type == "namespace_import":
                inner = [n for n in named(part) if n.type == "identifier"]
                if inner:
                    bindings[text(inner[0])] = Binding("import", module=module, imported="*")
            elif part.type == "named_imports":
                for spec in named(part):
                    if spec.type != "import_specifier":
                        continue
                    imported = spec.child_by_field_name("name")
                    alias = spec.child_by_field_name("alias")
                    if imported is None:
                        continue
                    local = alias if alias is not None else imported
                    bindings[text(local)] = Binding("import", module=module, imported=string_value(imported) or text(imported))


def _parameter_names(function: Node) -> set[str]:
    names: set[str] = set()
    single = function.child_by_field_name("parameter")
    if single is not None and single.type == "identifier":
        names.add(text(single))
    params = function.child_by_field_name("parameters")
    if params is None:
        return names
    stack = [params]
    while stack:
        current = stack.pop()
        if current.type in ("identifier", "shorthand_property_identifier_pattern"):
            names.add(text(current))
            continue
        if current.type in ("type_annotation", "object", "array") or current.type in FUNCTION_TYPES:
            continue  # types and default values declare nothing
        if current.type == "pair_pattern":
            value = current.child_by_field_name("value")
            if value is not None:
                stack.append(value)
            continue
        if current.type in ("assignment_pattern", "object_assignment_pattern"):
            left = current.child_by_field_name("left")  # `x = DEFAULT`: the default declares nothing
            if left is not None:
                stack.append(left)
            continue
        if current.type in ("required_parameter", "optional_parameter"):
            pattern = current.child_by_field_name("pattern")  # its `value` is a default
            if pattern is not None:
                stack.append(pattern)
            continue
        stack.extend(current.named_children)
    return names


def _number(raw: str) -> int | float:
    cleaned = raw.replace("_", "").lower()
    try:
        if cleaned.endswith("n"):
            return int(cleaned[:-1], 0)
        if cleaned.startswith(("0x", "0o", "0b")):
            return int(cleaned, 0)
        if len(cleaned) > 1 and cleaned.startswith("0") and cleaned.isdigit():
            return int(cleaned, 8)  # legacy octal
        return _normal_number(float(cleaned))
    except ValueError:
        return math.nan


def _normal_number(value: float | int) -> int | float:
    """Integral floats as ints, as JSON.stringify prints them."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def _js_string(value: Any) -> str:
    """`String(value)` for the primitives a key or a template may hold."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return repr(_normal_number(value))
    return str(value)


def _fold(op: str, left: Any, right: Any) -> Any:
    """Constant folding of the operators configs use (`15 * 60 * 1000`, `'a' + 'b'`)."""
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (left, right))
    if op == "+" and (isinstance(left, str) or isinstance(right, str)):
        if all(isinstance(v, str | int | float) for v in (left, right)):
            return _js_string(left) + _js_string(right)
        return None
    if not numbers:
        return None
    try:
        if op == "+":
            return _normal_number(left + right)
        if op == "-":
            return _normal_number(left - right)
        if op == "*":
            return _normal_number(left * right)
        if op == "/":
            return _normal_number(left / right) if right else None
        if op == "%":
            return _normal_number(math.fmod(left, right)) if right else None
        if op == "**":
            return _normal_number(left**right)
    except (OverflowError, ValueError):
        return None
    return None
