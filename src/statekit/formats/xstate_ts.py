"""XState source code (TypeScript / JavaScript): read statically, write as readable TypeScript.

Reading goes through `statekit.extract` (tree-sitter, never executed): the first machine of the
file becomes the model; `extract_models` gives every machine with its line. Code the model
cannot hold as a named implementation (an unresolvable name, an expression) becomes a warning.

Writing emits `setup({...}).createMachine({...})` when the machine names implementations (with
placeholders that behave as XState does when one is missing: guards and actors throw, actions
do nothing), else `createMachine({...})`. Inline code (`Guard.code`, `Action.code`, `$js`) is
written back as the source it came from.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

from statekit.errors import ToolError
from statekit.extract import extract_machines
from statekit.extract.values import XSTATE_BUILTINS
from statekit.formats import FormatWarning, Source, register_format, warning
from statekit.formats.documents import parse_config_model
from statekit.model import MachineModel, machine_to_config

_ACTION_KEYS = ("entry", "exit", "actions")
#: Subtrees that are data, not actions or guards, even when a key inside is called `actions`.
_DATA_KEYS = frozenset({"context", "meta", "params", "input", "output", "assignment", "event", "types"})
_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
_DETECT = re.compile(r"\bcreateMachine\s*[(<]")


# ---- read -------------------------------------------------------------------------------------


def read(value: Any) -> tuple[MachineModel, list[FormatWarning]]:
    """The first machine of the source text."""
    model, warnings, _implementations = read_implemented(value)
    return model, warnings


def read_implemented(value: Any) -> tuple[MachineModel, list[FormatWarning], dict[str, Any]]:
    """The first machine of the source text, and the implementations its source defines beside
    the config (`setup({...})`, `createMachine`'s second argument), read in the same parse."""
    if not isinstance(value, str):
        raise ToolError("invalid_input", "XState source must be JavaScript or TypeScript text")
    result = extract_machines(value)
    warnings: list[FormatWarning] = [
        warning(error["code"], error["message"], f"{error['line']}:{error['column']}") for error in result["errors"]
    ]
    if not result["machines"]:
        details = "; ".join(f"{e['line']}:{e['column']} {e['message']}" for e in result["errors"][:5])
        raise ToolError("invalid_input", "no createMachine(...) call found in the source" + (f" ({details})" if details else ""))
    machine = result["machines"][0]
    config = model_config(machine["config"], warnings)
    _refuse_unknown_states(config, result)
    model = parse_config_model(config)
    # The export name (`export const payment = ...`) stays what it was when written back.
    return replace(model, source_name=machine["name"]), warnings, dict(machine.get("implementations") or {})


def extract_models(text: str) -> Iterator[tuple[MachineModel, int]]:
    """Every machine of a source file that reads into the model, with the line it starts on."""
    for machine in extract_machines(text)["machines"]:
        try:
            model = parse_config_model(model_config(machine["config"], []))
        except ToolError:
            continue
        yield model, machine["line"]


def _refuse_unknown_states(config: Any, result: Mapping[str, Any]) -> None:
    """`invalid_input` when the machine's states come from values statekit cannot read (an
    imported `initial`, target or state name): any answer about a state tree with states left
    out would be silently wrong, so every tool says so instead."""
    machines = result["machines"]
    # Problems in the first machine's source (from the top of the file to the second machine).
    end = machines[1]["line"] if len(machines) > 1 else None
    unknown = [f"{error['line']}:{error['column']} {error['message'].split(';')[0]}" for error in result["errors"]
               if error["code"] == "unresolved_state" and (end is None or error["line"] < end)]
    unknown.extend(_unknown_targets(config, ""))
    if unknown:
        raise ToolError("invalid_input", "the machine's states cannot be known statically (they come from values "
                        "defined elsewhere, e.g. imported): " + "; ".join(unknown[:5]),
                        {"unresolved": unknown[:50]})


def _unknown_targets(node: Any, path: str) -> Iterator[str]:
    """Where a state node's `initial`, or a transition or its target, is a reference or an
    expression rather than a state name (walking the state nodes below `node`)."""
    if not isinstance(node, dict):
        return
    initial = node.get("initial")
    if _is_unread(initial):
        yield f"{path}initial is `{_unread_text(initial)}`"
    for key in ("on", "after"):
        group = node.get(key)
        if isinstance(group, dict):
            for name, transition in group.items():
                yield from _unknown_transition(transition, f"{path}{key}.{name}")
    for key in ("always", "onDone", "onError"):
        if key in node:
            yield from _unknown_transition(node[key], f"{path}{key}")
    invokes = node.get("invoke")
    for index, invoke in enumerate(invokes if isinstance(invokes, list) else [invokes]):
        if isinstance(invoke, dict):
            for key in ("onDone", "onError", "onSnapshot"):
                if key in invoke:
                    yield from _unknown_transition(invoke[key], f"{path}invoke[{index}].{key}")
    states = node.get("states")
    if isinstance(states, dict):
        for name, child in states.items():
            yield from _unknown_targets(child, f"{path}states.{name}.")


def _unknown_transition(transition: Any, where: str) -> Iterator[str]:
    for item in transition if isinstance(transition, list) else [transition]:
        if _is_unread(item):
            yield f"{where}: the transition is `{_unread_text(item)}`"
            continue
        target = item.get("target") if isinstance(item, dict) else None
        for one in target if isinstance(target, list) else [target]:
            if _is_unread(one):
                yield f"{where}: the target is `{_unread_text(one)}`"


def _unread_text(value: Any) -> str:
    return str(value.get("$ref") or value.get("$expr")) if isinstance(value, dict) else str(value)


def _is_unread(value: Any) -> bool:
    return isinstance(value, dict) and len(value) == 1 and ("$ref" in value or "$expr" in value)


def model_config(config: Any, warnings: list[FormatWarning], path: str = "") -> Any:
    """The extracted config with references and expressions in action / guard / src positions
    turned into what the model holds (named implementations, inline code), each with a warning."""
    if isinstance(config, list):
        return [model_config(item, warnings, f"{path}[{index}]") for index, item in enumerate(config)]
    if not isinstance(config, dict):
        return config
    out: dict[str, Any] = {}
    for key, value in config.items():
        where = f"{path}.{key}" if path else key
        if key in ("states", "on", "after") and isinstance(value, dict):
            # Keys here are state names and event types, not config keys (an event may be "event").
            out[key] = {name: model_config(item, warnings, f"{where}.{name}") for name, item in value.items()}
        elif key in _DATA_KEYS:
            out[key] = value
        elif key in _NAME_KEYS:
            out[key] = _opaque_names(key, value, warnings, where)
        elif key in _ACTION_KEYS or key == "guard":
            items = value if isinstance(value, list) else [value]
            converted = [_implementation_ref(item, warnings, where) for item in items]
            out[key] = model_config(converted if isinstance(value, list) else converted[0], warnings, where)
        elif key == "src" and isinstance(value, dict) and "$ref" in value:
            warnings.append(warning("unresolved_reference", f"actor {value['$ref']!r} is imported; kept as its name", where))
            out[key] = value["$ref"]
        else:
            out[key] = model_config(value, warnings, where)
    return out


#: Keys whose values are names XState only compares or shows (a tag, an id, a description): a
#: value defined elsewhere runs as its reference's text, an opaque name, with a warning.
_NAME_KEYS = frozenset({"tags", "id", "description"})


def _opaque_names(key: str, value: Any, warnings: list[FormatWarning], where: str) -> Any:
    if isinstance(value, list):
        return [_opaque_names(key, item, warnings, f"{where}[{index}]") for index, item in enumerate(value)]
    if not _is_unread(value):
        return value
    name = value.get("$ref") or value.get("$expr")
    warnings.append(warning("unresolved_reference", f"{key} value {name!r} is defined elsewhere (e.g. imported), so "
                            f"its value cannot be known statically; it runs as the opaque name {name!r}", where))
    return name


def _implementation_ref(item: Any, warnings: list[FormatWarning], where: str) -> Any:
    if not isinstance(item, dict):
        return item
    if "$ref" in item and len(item) == 1:
        warnings.append(warning("unresolved_reference", f"{item['$ref']!r} is defined elsewhere; kept as a named implementation", where))
        return {"type": item["$ref"]}
    if "$expr" in item and len(item) == 1:
        warnings.append(warning("expression", "an expression statekit does not evaluate; kept as inline code", where))
        return {"type": "(expression)", "code": item["$expr"]}
    return item


# ---- write ------------------------------------------------------------------------------------


class _Writer:
    """Emits one machine config as a TypeScript object literal."""

    def __init__(self) -> None:
        self.imports: set[str] = set()
        #: Named inline functions written as `const name = ...` before the machine, so that
        #: JavaScript infers the same name for them when the file is read again.
        self.hoisted: dict[str, str] = {}
        self._hoisted_as: dict[tuple[str, str], str] = {}
        #: Expressions and references extraction did not evaluate, written as they were.
        self.unevaluated: list[str] = []

    def inline(self, name: str, code: str, inferred: str) -> str:
        """Inline code written where JavaScript would name it `inferred`, keeping `name`."""
        method = _METHOD.match(code)
        if method is not None and method.group(3) != inferred:
            # A method only keeps its text inside an object: `({ save() {...} }).save`.
            return self.hoist(method.group(3), f"({{ {code} }}).{method.group(3)}")
        if name == (inferred or "(anonymous)") or _OWN_NAME.match(code):
            return _source(code)
        if name == "(anonymous)":
            return f"[{code}]" if inferred else code  # array items are anonymous
        if not _IDENTIFIER.match(name) or name in _RESERVED:
            return _source(code)
        return self.hoist(name, code)

    def hoist(self, name: str, code: str) -> str:
        known = self._hoisted_as.get((name, code))
        if known is not None:
            return known
        variable = name
        while variable in _WRITER_IMPORTS or variable in self.hoisted:
            variable += "_"
        # Another variable name would rename the function; a property keeps `name`.
        self.hoisted[variable] = code if variable == name else f"({{ {_key(name)}: {code} }})[{_literal(name)}]"
        self._hoisted_as[(name, code)] = variable
        return variable

    def value(self, value: Any, indent: int) -> str:
        code = _code_of(value)
        if code is not None:
            if "$js" not in value:
                self.unevaluated.append(code)
            return code
        if isinstance(value, dict):
            return self._object(value, indent, self.value)
        if isinstance(value, list):
            return self._array([self.value(item, indent + 1) for item in value], indent)
        return _literal(value)

    def _object(self, mapping: dict[str, Any], indent: int, emit: Any) -> str:
        if not mapping:
            return "{}"
        pad = "  " * (indent + 1)
        lines = [f"{pad}{_member(key, emit(item, indent + 1))}," for key, item in mapping.items()]
        return "{\n" + "\n".join(lines) + "\n" + "  " * indent + "}"

    @staticmethod
    def _array(items: list[str], indent: int) -> str:
        items = [_as_expression(item) for item in items]
        if not items:
            return "[]"
        if sum(len(item) for item in items) < 60 and not any("\n" in item for item in items):
            return "[" + ", ".join(items) + "]"
        pad = "  " * (indent + 1)
        return "[\n" + "\n".join(f"{pad}{item}," for item in items) + "\n" + "  " * indent + "]"

    def state(self, config: Any, indent: int) -> str:
        if not isinstance(config, dict):
            return self.value(config, indent)

        parts: dict[str, str] = {}
        for key, item in config.items():
            if key == "states" and isinstance(item, dict):
                parts[key] = self._object(item, indent + 1, self.state)
            elif key in ("on", "after") and isinstance(item, dict):
                parts[key] = self._object(item, indent + 1, self.transitions)
            elif key in ("always", "onDone"):
                parts[key] = self.transitions(item, indent + 1)
            elif key in ("entry", "exit"):
                parts[key] = self.actions(item, indent + 1, key)
            elif key == "invoke":
                items = item if isinstance(item, list) else [item]
                written = [self.invoke(entry, indent + 2 if isinstance(item, list) else indent + 1) for entry in items]
                parts[key] = self._array(written, indent + 1) if isinstance(item, list) else written[0]
            else:
                parts[key] = self.value(item, indent + 1)
        pad = "  " * (indent + 1)
        return "{\n" + "\n".join(f"{pad}{_member(k, v)}," for k, v in parts.items()) + "\n" + "  " * indent + "}"

    def invoke(self, config: Any, indent: int) -> str:
        if not isinstance(config, dict):
            return self.value(config, indent)
        pad = "  " * (indent + 1)
        lines = []
        for key, item in config.items():
            text = self.transitions(item, indent + 1) if key in ("onDone", "onError", "onSnapshot") else self.value(item, indent + 1)
            lines.append(f"{pad}{_member(key, text)},")
        return "{\n" + "\n".join(lines) + "\n" + "  " * indent + "}"

    def transitions(self, value: Any, indent: int) -> str:
        if isinstance(value, list):
            return self._array([self.transition(item, indent + 1) for item in value], indent)
        return self.transition(value, indent)

    def transition(self, value: Any, indent: int) -> str:
        if not isinstance(value, dict):
            return self.value(value, indent)
        pad = "  " * (indent + 1)
        lines = []
        for key, item in value.items():
            if key == "guard":
                text = self.guard(item, indent + 1, "guard")
            elif key == "actions":
                text = self.actions(item, indent + 1, "actions")
            else:
                text = self.value(item, indent + 1)
            lines.append(f"{pad}{_member(key, text)},")
        if len(lines) == 1 and "\n" not in lines[0]:
            return "{ " + lines[0].strip().rstrip(",") + " }"
        return "{\n" + "\n".join(lines) + "\n" + "  " * indent + "}"

    def actions(self, value: Any, indent: int, key: str) -> str:
        if isinstance(value, list):
            return self._array([self.action(item, indent + 1, "") for item in value], indent)
        return self.action(value, indent, key)

    def action(self, value: Any, indent: int, inferred: str) -> str:
        if not isinstance(value, dict) or not isinstance(value.get("type"), str):
            return self.value(value, indent)
        kind = value["type"]
        if isinstance(value.get("code"), str) and not kind.startswith("xstate."):
            return self.inline(kind, str(value["code"]), inferred)
        args = _BUILTIN_ACTION_ARGS.get(kind)
        if args is None:
            return self.value(value, indent)
        name = kind.removeprefix("xstate.")
        self.imports.add(name)
        if kind == "xstate.enqueueActions":
            code = value.get("code")
            if isinstance(code, str):
                return f"enqueueActions({code})"
            return self.value(value, indent)
        positional = [self.value(value[arg], indent) for arg in args if arg in value]
        options = {key: value[key] for key in _BUILTIN_OPTIONS.get(kind, ()) if key in value}
        if options:
            if len(positional) < len(args) and kind == "xstate.log":
                positional.append("undefined")
            positional.append(self.value(options, indent))
        return f"{name}({', '.join(positional)})"

    def guard(self, value: Any, indent: int, inferred: str = "") -> str:
        if not isinstance(value, dict) or not isinstance(value.get("type"), str):
            return self.value(value, indent)
        kind = value["type"]
        if kind in ("xstate.and", "xstate.or"):
            name = kind.removeprefix("xstate.")
            self.imports.add(name)
            return f"{name}([{', '.join(self.guard(g, indent) for g in value.get('guards', []))}])"
        if kind == "xstate.not":
            self.imports.add("not")
            return f"not({self.guard(value.get('guard'), indent)})"
        if kind == "xstate.stateIn":
            self.imports.add("stateIn")
            return f"stateIn({self.value(value.get('state'), indent)})"
        if isinstance(value.get("code"), str):
            return self.inline(kind, str(value["code"]), inferred)
        return self.value(value, indent)


#: A function that names itself (`function save() {}`, a method `save() {}`): no hoisting needed.
_OWN_NAME = re.compile(r"^\s*(async\s+)?(function\s*\*?\s*[A-Za-z_$][\w$]*\s*\(|(?!function\b|async\s*\()[A-Za-z_$][\w$]*\s*\()")
_RESERVED = frozenset({"function", "class", "const", "let", "var", "new", "return", "if", "else", "for", "while",
                       "do", "switch", "case", "break", "continue", "default", "delete", "typeof", "void", "this",
                       "import", "export", "async", "await", "yield", "in", "of", "instanceof", "null", "true",
                       "false", "undefined", "try", "catch", "finally", "throw", "with", "enum", "super", "extends"})


#: Names the written file may import from xstate; a hoisted constant must not take one.
_WRITER_IMPORTS = XSTATE_BUILTINS | {"setup", "createMachine", "fromPromise"}

_BUILTIN_ACTION_ARGS: dict[str, tuple[str, ...]] = {
    "xstate.assign": ("assignment",),
    "xstate.raise": ("event",),
    "xstate.sendTo": ("to", "event"),
    "xstate.sendParent": ("event",),
    "xstate.emit": ("event",),
    "xstate.log": ("value", "label"),
    "xstate.cancel": ("sendId",),
    "xstate.spawnChild": ("src",),
    "xstate.stopChild": ("actorRef",),
    "xstate.enqueueActions": (),
}
_BUILTIN_OPTIONS: dict[str, tuple[str, ...]] = {
    "xstate.raise": ("id", "delay"),
    "xstate.sendTo": ("id", "delay"),
    "xstate.sendParent": ("id", "delay"),
    "xstate.spawnChild": ("id", "systemId", "input", "syncSnapshot"),
}


def _code_of(value: Any) -> str | None:
    """Source kept verbatim: `{"$js"}`, `{"$expr"}`, `{"$ref"}`."""
    if isinstance(value, dict) and len(value) == 1:
        for marker in ("$js", "$expr", "$ref"):
            if isinstance(value.get(marker), str):
                return _source(str(value[marker])) if marker == "$js" else str(value[marker])
    return None


#: Method syntax (`entry() {...}`, `async load() {...}`): valid only as an object member.
_METHOD = re.compile(r"^\s*(async\s+)?(\*\s*)?(?!function\b|async\b)([A-Za-z_$][\w$]*)\s*\(")


class _MethodText(str):
    """Inline code that is a method (`entry() {...}`): valid only as an object member."""

    __slots__ = ()


def _source(code: str) -> str:
    """Inline source to write; methods are marked so that members and arrays handle them."""
    return _MethodText(code) if _METHOD.match(code) else code


def _member(key: str, text: str) -> str:
    """`key: text`, or the method itself when `text` is a method named `key`."""
    method = _METHOD.match(text) if isinstance(text, _MethodText) else None
    if method is not None:
        return text if method.group(3) == key else f"{_key(key)}: {_as_expression(text)}"
    return f"{_key(key)}: {text}"


def _as_expression(text: str) -> str:
    """A method's text as a function expression (arrays and mismatched keys need one)."""
    method = _METHOD.match(text) if isinstance(text, _MethodText) else None
    if method is None:
        return text
    prefix = "async function" if method.group(1) else "function"
    return f"{prefix}{'*' if method.group(2) else ''} {text[method.start(3):]}"


def _key(key: str) -> str:
    return key if _IDENTIFIER.match(key) else _literal(key)


def _literal(value: Any) -> str:
    if isinstance(value, str):
        return "'" + json.dumps(value, ensure_ascii=False)[1:-1].replace("\\\"", "\"").replace("'", "\\'") + "'"
    return json.dumps(value, ensure_ascii=False)


def _implementation_names(model: MachineModel) -> dict[str, list[str]]:
    guards: list[str] = []
    actions: list[str] = []
    actors: list[str] = []
    delays: list[str] = []
    for node in model.root.walk():
        for action in (*node.entry, *node.exit):
            actions.extend(action.names())
        for invoke in node.invoke:
            if not invoke.src.startswith("xstate.invoke."):
                actors.append(invoke.src)
    for transition in model.transitions():
        if transition.guard is not None:
            guards.extend(transition.guard.names())
        for action in transition.actions:
            actions.extend(action.names())
        if isinstance(transition.delay, str):
            delays.append(transition.delay)
    return {kind: list(dict.fromkeys(names)) for kind, names in
            (("guards", guards), ("actions", actions), ("actors", actors), ("delays", delays)) if names}


def _placeholders(names: dict[str, list[str]], writer: _Writer, warnings: list[FormatWarning]) -> str:
    lines = ["{"]
    for kind, kind_names in names.items():
        lines.append(f"  {kind}: {{")
        for name in kind_names:
            warnings.append(warning("placeholder_implementation", f"{kind[:-1]} {name!r} has no implementation in the model; written as a placeholder", ""))
            label = json.dumps(f"{kind[:-1]} {name} is not implemented")
            if kind == "actions":
                body = "() => {}"  # XState skips a named action it has no implementation for
            elif kind == "actors":
                writer.imports.add("fromPromise")
                body = f"fromPromise(async () => {{ throw new Error({label}); }})"
            else:
                body = f"() => {{ throw new Error({label}); }}"
            lines.append(f"    {_key(name)}: {body},")
        lines.append("  },")
    lines.append("}")
    return "\n".join(lines)


def write(model: MachineModel) -> tuple[str | dict[str, Any], list[FormatWarning]]:
    """TypeScript source defining the machine."""
    warnings: list[FormatWarning] = []
    writer = _Writer()
    config = writer.state(machine_to_config(model), 0)
    names = _implementation_names(model)
    variable = _variable_name(model.id)
    if model.source_name and _is_variable(model.source_name) and model.source_name not in writer.hoisted:
        variable = model.source_name
    if names:
        writer.imports.add("setup")
        head = f"export const {variable} = setup({_placeholders(names, writer, warnings)}).createMachine("
    else:
        writer.imports.add("createMachine")
        head = f"export const {variable} = createMachine("
    if writer.unevaluated:
        shown = ", ".join(repr(" ".join(code.split())[:60]) for code in writer.unevaluated[:3])
        warnings.append(warning(
            "expression_kept", f"{len(writer.unevaluated)} value(s) statekit did not evaluate are written as they were "
            f"({shown}{', ...' if len(writer.unevaluated) > 3 else ''}): XState evaluates them when it builds the "
            "machine, so the file builds only where the names they use are defined, as in the original module", ""))
    imports = ", ".join(sorted(writer.imports))
    hoisted = "".join(f"const {name} = {code};\n" for name, code in writer.hoisted.items())
    return f"import {{ {imports} }} from 'xstate';\n\n{hoisted}{chr(10) if hoisted else ''}{head}{config});\n", warnings


def _is_variable(name: str) -> bool:
    return _IDENTIFIER.match(name) is not None and name not in _RESERVED and name not in _WRITER_IMPORTS


def _variable_name(machine_id: str) -> str:
    words: list[str] = re.findall(r"[A-Za-z0-9]+", machine_id)
    if not words:
        return "machine"
    name = words[0][0].lower() + words[0][1:] + "".join(w[0].upper() + w[1:] for w in words[1:])
    if name[0].isdigit():
        name = "m" + name
    return name if name.lower().endswith("machine") else name + "Machine"


def detect(source: Source) -> float:
    """Source text that calls createMachine."""
    text = source.text
    if not text or source.data is not None:
        return 0.0
    return 0.9 if _DETECT.search(text) else 0.0


register_format(
    "xstate-ts",
    read=read,
    read_implemented=read_implemented,
    write=write,
    detect=detect,
    aliases=("typescript", "javascript", "ts", "js", "xstate-js"),
    media_type="text/typescript",
    description="XState machine source (TypeScript / JavaScript), read statically, written as TypeScript",
    title="XState JS/TS source",
)
