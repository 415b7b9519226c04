"""From evaluated JavaScript values to statekit's JSON encoding of an XState config.

This walks the config the way XState reads it (state nodes, transitions, actions, guards,
invokes) and encodes what is code: an inline guard or action function becomes
`{"type": <its JS name or "(anonymous)">, "code": <source>}`, a built-in call becomes its
`xstate.*` object, any other function-valued field becomes `{"$js": <source>}`, an unresolvable
name `{"$ref": name}` and any other expression `{"$expr": <source>}`. Where an action or a guard
cannot be known statically (an import, a call of an imported or branching function), it becomes
a named reference, `{"type": name}`, which every tool accepts as an implementation to supply,
and a note says so (`unresolved_reference`). An inline actor logic
(`invoke: {src: fromPromise(...)}`) gets the name XState itself registers it under,
`xstate.invoke.<index>.<state id>`, and its source goes to the implementations.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from statekit.extract.values import UNDEFINED, BuiltinCall, JsExpr, JsFunction, JsRef

#: Beside `$expr` for a child machine written in place: its definition, or why it has none (the
#: keys `statekit.model.unresolved` reads as DEFINITION and UNRENDERED).
DEFINITION = "$definition"
UNRENDERED = "$unrendered"

_ANONYMOUS = "(anonymous)"
_TRANSITION_GROUPS = ("on", "after")
_INVOKE_TRANSITIONS = ("onDone", "onError", "onSnapshot")
#: The event function `forwardTo` passes to `sendTo` (XState's own source, as it prints it).
FORWARD_EVENT = "({ event }) => event"
_GUARD_BUILTINS = {"and": "xstate.and", "or": "xstate.or", "not": "xstate.not", "stateIn": "xstate.stateIn"}
#: A call whose callee is a name or a dotted name: `track('x')`, `helpers.make<T>(1)`, and
#: CommonJS output's `(0, helpers_1.track)('x')`.
_CALL = re.compile(r"^\s*(?:\(\s*0\s*,\s*)?([A-Za-z_$][\w$]*(?:\s*\??\.\s*[A-Za-z_$][\w$]*)*)\s*\)?\s*"
                   r"(?:<[^()]*>)?\s*\(", re.DOTALL)
#: A named reference made from an expression is at most this long.
MAX_REFERENCE_NAME = 80


@dataclass(frozen=True)
class NamedReference:
    """An action or guard statekit could not know, kept as `{"type": name}`."""

    kind: str  # "action" or "guard"
    name: str
    source: str
    at: tuple[int, int]


_REFERENCES: ContextVar[list[NamedReference] | None] = ContextVar("statekit_extract_references", default=None)


@contextmanager
def collecting_references() -> Iterator[list[NamedReference]]:
    """The named references made while encoding inside the `with` block."""
    found: list[NamedReference] = []
    token = _REFERENCES.set(found)
    try:
        yield found
    finally:
        _REFERENCES.reset(token)


def named_reference(value: JsRef | JsExpr | BuiltinCall, kind: str) -> dict[str, str]:
    """`{"type": name}` for an action or guard that cannot be known statically: an unresolved
    name keeps it (`track`, `analytics.flush`); a call is named after its callee with `()` (what
    the call returns is unknown, as the node oracle names it); any other expression by its text."""
    if isinstance(value, JsRef):
        name, source, at = value.name, value.name, value.at
    else:
        source = value.code
        at = value.at if isinstance(value, JsExpr) else (0, 0)
        call = _CALL.match(source)
        if call is not None:
            name = re.sub(r"\s+", "", call.group(1)) + "()"
        else:
            name = " ".join(source.split())
            if len(name) > MAX_REFERENCE_NAME:
                name = name[: MAX_REFERENCE_NAME - 1] + "\u2026"
    found = _REFERENCES.get()
    if found is not None:
        found.append(NamedReference(kind, name, source, at))
    return {"type": name}


@dataclass
class ConfigEncoder:
    """Encodes one machine config; `inline_actors` collects `xstate.invoke.*` sources."""

    machine_id: str = "(machine)"
    inline_actors: dict[str, dict[str, Any]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def machine(self, config: Any) -> Any:
        if not isinstance(config, dict):
            return plain(config)
        machine_id = config.get("id")
        self.machine_id = machine_id if isinstance(machine_id, str) else "(machine)"
        return self.state(config, [])

    def state(self, config: Any, path: list[str]) -> Any:
        if not isinstance(config, dict):
            return plain(config)
        own_id = config.get("id")
        node_id = own_id if isinstance(own_id, str) else ".".join([self.machine_id, *path])
        out: dict[str, Any] = {}
        for key, value in config.items():
            if value is UNDEFINED:
                continue
            if key == "states" and isinstance(value, dict):
                out[key] = {
                    child: self.state(child_config, [*path, child])
                    for child, child_config in value.items() if child_config is not UNDEFINED
                }
            elif key in _TRANSITION_GROUPS and isinstance(value, dict):
                out[key] = {event: transitions(item) for event, item in value.items() if item is not UNDEFINED}
            elif key in ("always", "onDone"):
                out[key] = transitions(value)
            elif key in ("entry", "exit"):
                out[key] = actions(value)
            elif key in ("initial", "route") and isinstance(value, dict):
                out[key] = transition(value)  # `{target, actions}` / `{guard, actions}`: a transition
            elif key == "invoke":
                items = value if isinstance(value, list) else [value]
                encoded = [self.invoke(item, node_id, index) for index, item in enumerate(items)]
                out[key] = encoded if isinstance(value, list) else encoded[0]
            else:
                out[key] = plain(value)
        return out

    def invoke(self, config: Any, node_id: str, index: int) -> Any:
        if not isinstance(config, dict):
            return plain(config)
        out: dict[str, Any] = {}
        for key, value in config.items():
            if value is UNDEFINED:
                continue
            if key == "src" and not isinstance(value, str):
                name = f"xstate.invoke.{index}.{node_id}"
                self.inline_actors[name] = implementation(value)
                out[key] = name
            elif key in _INVOKE_TRANSITIONS:
                out[key] = transitions(value)
            else:
                out[key] = plain(value)
        return out


def transitions(value: Any) -> Any:
    """A transition config: a target, an object, or a list of them."""
    if isinstance(value, list):
        return [transition(item) for item in value]
    return transition(value)


def transition(value: Any) -> Any:
    if not isinstance(value, dict):
        return plain(value)
    out: dict[str, Any] = {}
    for key, item in value.items():
        if item is UNDEFINED:
            continue
        if key == "guard":
            out[key] = guard(item)
        elif key == "actions":
            out[key] = actions(item)
        else:
            out[key] = plain(item)
    return out


def actions(value: Any) -> Any:
    """One action or a list of them."""
    if isinstance(value, list):
        return [action(item) for item in value]
    return action(value)


def action(value: Any) -> Any:
    if isinstance(value, JsFunction):
        return {"type": value.name or _ANONYMOUS, "code": value.code}
    if isinstance(value, BuiltinCall):
        encoded = builtin_action(value)
        return encoded if encoded is not None else named_reference(value, "action")
    if isinstance(value, JsRef | JsExpr):
        return named_reference(value, "action")
    return plain(value)


def guard(value: Any) -> Any:
    if isinstance(value, JsFunction):
        return {"type": value.name or _ANONYMOUS, "code": value.code}
    if isinstance(value, BuiltinCall) and value.name in _GUARD_BUILTINS:
        args = value.args
        kind = _GUARD_BUILTINS[value.name]
        if kind == "xstate.not":
            return {"type": kind, "guard": guard(args[0] if args else UNDEFINED)}
        if kind == "xstate.stateIn":
            return {"type": kind, "state": plain(args[0] if args else UNDEFINED)}
        operands = args[0] if args and isinstance(args[0], list) else []
        return {"type": kind, "guards": [guard(item) for item in operands]}
    if isinstance(value, BuiltinCall | JsRef | JsExpr):
        return named_reference(value, "guard")
    return plain(value)


def _options(args: tuple[Any, ...], index: int) -> dict[str, Any]:
    options = args[index] if len(args) > index else None
    return options if isinstance(options, dict) else {}


def _put(out: dict[str, Any], key: str, value: Any) -> None:
    if value is not UNDEFINED:
        out[key] = plain(value)


def builtin_action(call: BuiltinCall) -> dict[str, Any] | None:
    """The statekit object of a built-in action call, None if it is not an action."""
    args = call.args
    first = args[0] if args else UNDEFINED
    name = call.name
    out: dict[str, Any]
    if name == "assign":
        return {"type": "xstate.assign", "assignment": plain(first)}
    if name in ("raise", "sendParent", "emit"):
        out = {"type": f"xstate.{name}"}
        _put(out, "event", first)
        if name != "emit":
            options = _options(args, 1)
            for key in ("id", "delay"):
                _put(out, key, options.get(key, UNDEFINED))
        return out
    if name == "sendTo":
        out = {"type": "xstate.sendTo"}
        _put(out, "to", first)
        _put(out, "event", args[1] if len(args) > 1 else UNDEFINED)
        options = _options(args, 2)
        for key in ("id", "delay"):
            _put(out, key, options.get(key, UNDEFINED))
        return out
    if name == "forwardTo":  # XState: sendTo(target, ({ event }) => event, options)
        out = {"type": "xstate.sendTo"}
        _put(out, "to", first)
        out["event"] = {"$js": FORWARD_EVENT}
        options = _options(args, 1)
        for key in ("id", "delay"):
            _put(out, key, options.get(key, UNDEFINED))
        return out
    if name == "log":
        out = {"type": "xstate.log"}
        _put(out, "value", first)
        _put(out, "label", args[1] if len(args) > 1 else UNDEFINED)
        return out
    if name == "cancel":
        out = {"type": "xstate.cancel"}
        _put(out, "sendId", first)
        return out
    if name == "spawnChild":
        out = {"type": "xstate.spawnChild"}
        _put(out, "src", first)
        options = _options(args, 1)
        for key in ("id", "systemId", "input", "syncSnapshot"):
            _put(out, key, options.get(key, UNDEFINED))
        return out
    if name in ("stopChild", "stop"):
        out = {"type": "xstate.stopChild"}
        _put(out, "actorRef", first)
        return out
    if name == "enqueueActions":
        if isinstance(first, JsFunction):
            return {"type": "xstate.enqueueActions", "code": first.code}
        return {"type": "xstate.enqueueActions", "code": plain(first)}
    return None


def plain(value: Any) -> Any:
    """Data as JSON; code as `$js` / `$ref` / `$expr`; `undefined` dropped from objects."""
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items() if item is not UNDEFINED}
    if isinstance(value, list):
        return [None if item is UNDEFINED else plain(item) for item in value]
    if isinstance(value, JsFunction):
        return {"$js": value.code}
    if isinstance(value, JsRef):
        return {"$ref": value.name}
    if isinstance(value, JsExpr):
        if isinstance(value.definition, dict):
            return {"$expr": value.code, DEFINITION: value.definition}
        if isinstance(value.definition, str):
            return {"$expr": value.code, UNRENDERED: value.definition}
        return {"$expr": value.code}
    if isinstance(value, BuiltinCall):
        encoded = builtin_action(value)
        return encoded if encoded is not None else guard(value)
    if value is UNDEFINED:
        return None
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return None  # JSON.stringify writes NaN and Infinity as null
    return value


def implementation(value: Any, kind: str = "") -> dict[str, Any]:
    """A `setup` implementation: `{"code": source}`, `{"$ref": name}` or `{"value": data}`.

    A built-in written as an implementation (`actions: {inc: assign({...})}`, `guards: {both:
    and([...])}`) is data, not code: `{"value": <its xstate.* object>, "source": <the call>}`.
    """
    if isinstance(value, BuiltinCall):
        if kind == "guards":
            encoded = guard(value) if value.name in _GUARD_BUILTINS else None
        else:
            encoded = builtin_action(value)
        if encoded is not None:
            return {"value": encoded, "source": value.code}
        return {"code": value.code}
    if isinstance(value, JsFunction | JsExpr):
        return {"code": value.code}
    if isinstance(value, JsRef):
        return {"$ref": value.name}
    return {"value": plain(value)}


def implementations(setup_value: Any) -> dict[str, dict[str, Any]]:
    """The guards / actions / actors / delays of a `setup({...})` (or `provide`) argument."""
    out: dict[str, dict[str, Any]] = {}
    if not isinstance(setup_value, Mapping):
        return out
    for kind in ("guards", "actions", "actors", "delays"):
        group = setup_value.get(kind)
        if isinstance(group, Mapping):
            out[kind] = {name: implementation(item, kind) for name, item in group.items() if item is not UNDEFINED}
        elif isinstance(group, JsRef):
            out[kind] = {"$ref": group.name}
    return out


def looks_like_v6(config: Any, depth: int = 0) -> bool:
    """XState v6 writes transitions as functions and actions as `(args, enq) => ...`."""
    if depth > 60 or not isinstance(config, dict):
        return False
    if "schemas" in config:
        return True
    if depth == 0 and any(isinstance(config.get(key), dict) for key in ("actions", "guards", "actors", "delays")):
        return True  # v6 takes implementations in the config itself
    for key in _TRANSITION_GROUPS:
        group = config.get(key)
        if isinstance(group, dict) and any(isinstance(item, JsFunction) for item in group.values()):
            return True
    if isinstance(config.get("always"), JsFunction):
        return True
    for key in ("entry", "exit"):
        items = config.get(key)
        for item in items if isinstance(items, list) else [items]:
            if isinstance(item, JsFunction) and _uses_enqueue(item.code):
                return True
    states = config.get("states")
    if isinstance(states, dict):
        return any(looks_like_v6(child, depth + 1) for child in states.values())
    return False


def _uses_enqueue(code: str) -> bool:
    head = code.split("=>", 1)[0] if "=>" in code else code.split("{", 1)[0]
    return "enq" in head
