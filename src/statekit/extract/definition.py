"""XState's `machine.definition` of a child machine written in place (`createMachine({...})`).

XState's `spawnChild(createMachine({...}))` puts the child machine in the action's params, and
JSON shows a machine as its definition (`StateMachine.toJSON` -> `StateNode.definition`). This
writes that JSON from the config as the reader evaluated it (functions kept as source with the
name JavaScript infers, XState's action creators as `BuiltinCall`), following XState 5's
`StateNode` (ids, keys, document order, types, initial transition, `formatTransitions`,
`toSerializableAction`) and `JSON.stringify` (functions and `undefined` dropped from objects,
`null` in arrays). What it cannot render exactly raises `Unrenderable` with the reason: the
caller then refuses to simulate rather than show a definition XState would not.

Checked against XState's own `machine.definition` on many child configs
(tests/engine/test_child_machine_definition.py).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from statekit.extract.values import UNDEFINED, BuiltinCall, JsExpr, JsFunction, JsRef


class Unrenderable(Exception):
    """The child machine's definition cannot be written faithfully (the message says why)."""


#: The `type` XState's built-in action creators give the function they return.
_ACTION_TYPES = {
    "assign": "xstate.assign", "raise": "xstate.raise", "sendTo": "xstate.sendTo", "sendParent": "xstate.sendTo",
    "forwardTo": "xstate.sendTo", "log": "xstate.log", "cancel": "xstate.cancel", "stopChild": "xstate.stopChild",
    "stop": "xstate.stopChild", "spawnChild": "xstate.spawnChild", "enqueueActions": "xstate.enqueueActions",
    "emit": "xstate.emit",
}
#: Config keys of a state node this writer renders (or that leave no trace in the definition).
_NODE_KEYS = frozenset({"id", "type", "initial", "states", "on", "entry", "exit", "always", "tags", "description",
                        "meta", "output", "onDone", "history", "target", "after"})
#: Keys only the root has that the definition does not show.
_ROOT_KEYS = frozenset({"context", "version", "types", "schemas"})
_TYPES = frozenset({"atomic", "compound", "parallel", "final", "history"})
_ARRAY_INDEX = re.compile(r"^(0|[1-9][0-9]*)$")


@dataclass
class _Node:
    config: dict[str, Any]
    key: str
    path: tuple[str, ...]
    parent: _Node | None
    id: str
    order: int
    type: str = "atomic"
    states: dict[str, _Node] = field(default_factory=dict)


def machine_definition(config: Any) -> dict[str, Any]:
    """`createMachine(config).definition` as `JSON.parse(JSON.stringify(...))` shows it."""
    if not isinstance(config, dict):
        raise Unrenderable("the child machine's config is not an object literal")
    _refuse_system_ids(config, 0)
    machine_id = config.get("id")
    if machine_id is not UNDEFINED and machine_id is not None and not isinstance(machine_id, str):
        raise Unrenderable("the child machine's id is not a string")
    root_id = machine_id if isinstance(machine_id, str) and machine_id else "(machine)"
    writer = _Writer(root_id, config.get("version", UNDEFINED))
    root = writer.build(config, root_id, (), None)
    return writer.definition(root)


def _refuse_system_ids(value: Any, depth: int) -> None:
    """A child that registers actors under a system id would share the parent's system when XState
    makes it (its initial state is computed at once): statekit does not follow that."""
    if depth > 60:
        raise Unrenderable("the child machine's config is nested too deeply")
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "systemId":
                raise Unrenderable("the child machine registers an actor under a system id")
            _refuse_system_ids(item, depth + 1)
    elif isinstance(value, list | tuple):
        for item in value:
            _refuse_system_ids(item, depth + 1)
    elif isinstance(value, BuiltinCall):
        _refuse_system_ids(list(value.args), depth + 1)
    elif isinstance(value, JsFunction) and "systemId" in value.code:
        raise Unrenderable("the child machine's code names a system id")


def js_keys(mapping: dict[str, Any]) -> list[str]:
    """`Object.keys` order: array-index keys ascending, then the others as written."""
    indices = sorted((key for key in mapping if _ARRAY_INDEX.match(key) and int(key) < 2**32 - 1), key=int)
    return indices + [key for key in mapping if key not in indices]


class _Writer:
    def __init__(self, machine_id: str, version: Any) -> None:
        self.machine_id = machine_id
        self.version = version
        self.ids: dict[str, _Node] = {}

    # -- the tree (StateNode's constructor) -------------------------------------------------

    def build(self, config: Any, key: str, path: tuple[str, ...], parent: _Node | None) -> _Node:
        if not isinstance(config, dict):
            raise Unrenderable(f"the state '{key}' is not an object literal")
        allowed = _NODE_KEYS | (_ROOT_KEYS if parent is None else frozenset())
        unknown = sorted(name for name in config if name not in allowed)
        if unknown:
            raise Unrenderable(f"statekit does not render the child machine's '{unknown[0]}'")
        explicit = config.get("id")
        if explicit is not UNDEFINED and explicit is not None and not isinstance(explicit, str):
            raise Unrenderable("a state id is not a string")
        node_id = explicit if isinstance(explicit, str) and explicit else ".".join((self.machine_id, *path))
        if node_id in self.ids:
            raise Unrenderable(f"two states of the child machine have the id '{node_id}'")
        node = _Node(config, key, path, parent, node_id, len(self.ids))
        self.ids[node_id] = node
        states = config.get("states", UNDEFINED)
        if states is not UNDEFINED and not isinstance(states, dict):
            raise Unrenderable("a child machine's `states` is not an object literal")
        given_type = config.get("type", UNDEFINED)
        if given_type is not UNDEFINED and given_type not in _TYPES:
            raise Unrenderable(f"the state type {given_type!r} is not one statekit renders")
        history = config.get("history", UNDEFINED)
        if given_type is not UNDEFINED and given_type:
            node.type = str(given_type)
        elif isinstance(states, dict) and states:
            node.type = "compound"
        elif history not in (UNDEFINED, None, False, "", 0):
            node.type = "history"
        children: dict[str, Any] = states if isinstance(states, dict) else {}
        for child_key in js_keys(children):
            node.states[child_key] = self.build(children[child_key], child_key, (*path, child_key), node)
        if node.type == "compound" and not _truthy(config.get("initial", UNDEFINED)):
            raise Unrenderable(f"the compound state '{node_id}' has no initial state (XState refuses it)")
        return node

    # -- the definition (StateNode.definition, JSON.stringify'd) ----------------------------

    def definition(self, node: _Node) -> dict[str, Any]:
        config = node.config
        transitions = self.transitions(node)
        on: dict[str, list[Any]] = {}
        for descriptor, transition in transitions:
            on.setdefault(descriptor, []).append(transition)
        for always in _transition_configs(config.get("always", UNDEFINED)):
            self.transition(node, "", always)  # not in the definition, but XState resolves its targets
        history = config.get("history", UNDEFINED)
        out: dict[str, Any] = {
            "id": node.id,
            "key": node.key,
            "type": node.type,
            "initial": self.initial(node),
            "history": "shallow" if history is True else (history if _truthy(history) else False),
            "states": {key: self.definition(child) for key, child in node.states.items()},
            "on": on,
            "transitions": [transition for _, transition in transitions],
            # (a delay's raise and cancel follow the state's own actions, as getDelayedTransitions adds them)
            "entry": [_serializable_action(action) for action in _to_array(config.get("entry", UNDEFINED))]
            + [{"type": "xstate.raise"} for _ in _delays(config)],
            "exit": [_serializable_action(action) for action in _to_array(config.get("exit", UNDEFINED))]
            + [{"type": "xstate.cancel"} for _ in _delays(config)],
            "order": node.order or -1,
            "invoke": [],
            "tags": _json(_to_array(config.get("tags", UNDEFINED))),
        }
        _put(out, "version", _json(self.version))
        _put(out, "meta", _json(config.get("meta", UNDEFINED)))
        _put(out, "description", _json(config.get("description", UNDEFINED)))
        if node.type == "final" or node.parent is None:
            _put(out, "output", _json(config.get("output", UNDEFINED)))
        if isinstance(out["history"], dict | list):
            raise Unrenderable("a state's `history` is not a string or a boolean")
        return out

    def initial(self, node: _Node) -> dict[str, Any]:
        """`formatInitialTransition` as the definition's `initial.toJSON` shows it."""
        given = node.config.get("initial", UNDEFINED)
        out: dict[str, Any] = {"source": f"#{node.id}", "eventType": None, "actions": [], "target": []}
        if not _truthy(given):
            return out
        if isinstance(given, str):
            key: Any = given
        elif isinstance(given, dict):
            unknown = sorted(name for name in given if name not in ("target", "actions", "meta", "description"))
            if unknown:
                raise Unrenderable(f"statekit does not render an initial transition's '{unknown[0]}'")
            key = given.get("target", UNDEFINED)
            out["actions"] = [_serializable_action(action) for action in _to_array(given.get("actions", UNDEFINED))]
            _put(out, "meta", _json(given.get("meta", UNDEFINED)))
            _put(out, "description", _json(given.get("description", UNDEFINED)))
        else:
            raise Unrenderable("an initial state is neither a key nor a transition object")
        target = node.states.get(key) if isinstance(key, str) else None
        if target is None:
            raise Unrenderable(f"the initial state {key!r} of '{node.id}' does not exist (XState refuses it)")
        out["target"] = [f"#{target.id}"]
        return out

    def transitions(self, node: _Node) -> list[tuple[str, Any]]:
        """`formatTransitions`: `on` (in key order), then `onDone`."""
        config = node.config
        out: list[tuple[str, Any]] = []
        on = config.get("on", UNDEFINED)
        if on is not UNDEFINED:
            if not isinstance(on, dict):
                raise Unrenderable("a state's `on` is not an object literal")
            for descriptor in js_keys(on):
                if descriptor == "":
                    raise Unrenderable("an event descriptor is empty (XState refuses it)")
                out.extend((descriptor, self.transition(node, descriptor, item))
                           for item in _transition_configs(on[descriptor]))
        done = config.get("onDone", UNDEFINED)
        if _truthy(done):
            descriptor = f"xstate.done.state.{node.id}"
            out.extend((descriptor, self.transition(node, descriptor, item)) for item in _transition_configs(done))
        after = config.get("after", UNDEFINED)
        for key, delay in _delays(config):
            # getDelayedTransitions: a string is `{target}`; each transition gets the event and delay
            descriptor = f"xstate.after.{delay}.{node.id}"
            given = after[key]
            items = [{"target": given}] if isinstance(given, str) else _to_array(given)
            for item in items:
                if not isinstance(item, dict):
                    raise Unrenderable(f"a delayed transition of '{node.id}' is not a target or an object literal")
                out.append((descriptor, self.transition(node, descriptor, {**item, "event": descriptor, "delay": delay})))
        return out

    def transition(self, node: _Node, descriptor: str, config: Any) -> dict[str, Any]:
        """`formatTransition`'s `toJSON`: the config as written, then its resolved fields."""
        if not isinstance(config, dict):
            raise Unrenderable(f"a transition of '{node.id}' is not a target or an object literal")
        if _truthy(config.get("cond", UNDEFINED)):
            raise Unrenderable("a transition declares `cond` (XState refuses it)")
        out: dict[str, Any] = _json(config)
        out["actions"] = [_raw_action(action) for action in _to_array(config.get("actions", UNDEFINED))]
        guard = _json(config.get("guard", UNDEFINED))
        out.pop("guard", None)
        _put(out, "guard", guard)
        out.pop("target", None)
        targets = _normalized_target(config.get("target", UNDEFINED))
        if targets is not None:
            out["target"] = [f"#{self.resolve(node, target).id}" for target in targets]
        reenter = config.get("reenter", UNDEFINED)
        out["reenter"] = False if reenter is UNDEFINED or reenter is None else _json(reenter)
        out["source"] = f"#{node.id}"
        out["eventType"] = descriptor
        return out

    # -- targets (resolveTarget, getStateNodeByPath) ----------------------------------------

    def resolve(self, node: _Node, target: Any) -> _Node:
        if not isinstance(target, str):
            raise Unrenderable("a transition target is not a string")
        if "\\" in target:
            raise Unrenderable("statekit does not render a target with an escaped period")
        if target.startswith("#"):
            return self.by_id(target)
        if target.startswith("."):
            if node.parent is None:
                return self.by_path(node, target[1:])
            return self.by_path(node.parent, node.key + target)
        if node.parent is None:
            raise Unrenderable(f'the target "{target}" is not valid from the root node (XState refuses it)')
        return self.by_path(node.parent, target)

    def by_id(self, reference: str) -> _Node:
        path = reference.split(".")
        found = self.ids.get(path[0][1:])
        if found is None:
            raise Unrenderable(f"the target '{reference}' names no state of the child machine (XState refuses it)")
        return self.by_keys(found, path[1:])

    def by_path(self, node: _Node, path: str) -> _Node:
        if path.startswith("#"):
            return self.by_id(path)
        return self.by_keys(node, path.split("."))

    def by_keys(self, node: _Node, keys: list[str]) -> _Node:
        for key in keys:
            if not key:
                break
            if key.startswith("#"):
                node = self.by_id(key)
                continue
            child = node.states.get(key)
            if child is None:
                raise Unrenderable(f"the child state '{key}' of '{node.id}' does not exist (XState refuses it)")
            node = child
        return node


def _delays(config: dict[str, Any]) -> list[tuple[str, int | str]]:
    """The keys of `after` with the delay XState makes of each (`+key`, or the key when it is not a
    number: a named delay); a number whose JavaScript spelling statekit does not know is refused."""
    after = config.get("after", UNDEFINED)
    if after is UNDEFINED:
        return []
    if not isinstance(after, dict):
        raise Unrenderable("a state's `after` is not an object literal")
    delays: list[tuple[str, int | str]] = []
    for key in js_keys(after):
        if _ARRAY_INDEX.match(key):
            delays.append((key, int(key)))
        elif re.fullmatch(r"\s*[-+]?[0-9.eExXoObB_]+\s*|\s*", key) or key.strip() in ("Infinity", "-Infinity"):
            raise Unrenderable(f"statekit does not render the delay {key!r}")
        else:
            delays.append((key, key))
    return delays


def _truthy(value: Any) -> bool:
    return value not in (UNDEFINED, None, False, "", 0) and not (isinstance(value, float) and math.isnan(value))


def _put(out: dict[str, Any], key: str, value: Any) -> None:
    if value is not _OMITTED:
        out[key] = value


def _to_array(value: Any) -> list[Any]:
    """XState's `toArray`: undefined is `[]`, an array itself, anything else `[value]`."""
    if value is UNDEFINED:
        return []
    return list(value) if isinstance(value, list) else [value]


def _transition_configs(value: Any) -> list[Any]:
    """`toTransitionConfigArray`: a string (or undefined) is `{target}`."""
    items = value if isinstance(value, list) else [value]
    return [{"target": item} if item is UNDEFINED or isinstance(item, str) else item for item in items]


def _normalized_target(value: Any) -> list[Any] | None:
    if value is UNDEFINED or value == "":
        return None
    return _to_array(value)


def _serializable_action(action: Any) -> Any:
    """`toSerializableAction`: a name is `{type}`, an XState creator `{type: its type}`, a function
    `{type: its name}`, an object itself."""
    if isinstance(action, str):
        return {"type": action}
    if isinstance(action, BuiltinCall):
        kind = _ACTION_TYPES.get(action.name)
        if kind is None:
            raise Unrenderable(f"`{action.name}(...)` is not an action")
        return {"type": kind}
    if isinstance(action, JsFunction):
        return {"type": action.name}
    return _json(action)


def _raw_action(action: Any) -> Any:
    """An action as a transition's JSON shows it (the config's own value: a function is `null`)."""
    if isinstance(action, BuiltinCall) and action.name not in _ACTION_TYPES:
        raise Unrenderable(f"`{action.name}(...)` is not an action")
    value = _json(action)
    return None if value is _OMITTED else value


class _Omitted:
    """What `JSON.stringify` leaves out of an object (a function, `undefined`)."""


_OMITTED: Any = _Omitted()


def _json(value: Any, depth: int = 0) -> Any:
    """`value` as `JSON.parse(JSON.stringify(value))` gives it; `_OMITTED` for a function or undefined."""
    if depth > 60:
        raise Unrenderable("the child machine's config is nested too deeply")
    if value is UNDEFINED or isinstance(value, JsFunction | BuiltinCall):
        return _OMITTED
    if isinstance(value, JsRef | JsExpr):
        name = value.name if isinstance(value, JsRef) else value.code
        raise Unrenderable(f"`{name[:60]}` in the child machine's config is not data statekit can see")
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key in js_keys(value):
            item = _json(value[key], depth + 1)
            if item is not _OMITTED:
                out[key] = item
        return out
    if isinstance(value, list | tuple):
        items = [_json(item, depth + 1) for item in value]
        return [None if item is _OMITTED else item for item in items]
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise Unrenderable(f"a value of the child machine's config ({type(value).__name__}) is not data")
