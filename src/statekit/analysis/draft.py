"""A mutable working copy of a machine config that patches edit in place.

A draft is the XState config in its *expanded* form: every transition group is a list of
transition objects, `entry`/`exit` are lists, `invoke` is a list. The parser accepts that
form as it is, so the current model is always `parse_machine(draft)`: ids are resolved
against the model, edits are made on the dicts. Keeping the config (not the model) as the
working copy means state types, default invoke ids and event types are re-derived by the
one parser instead of being re-implemented here.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from statekit.errors import MachineDefinitionError
from statekit.model import MachineModel, StateNode, Transition, machine_to_config, parse_machine
from statekit.model.resolve import Resolver

Draft = dict[str, Any]

_GROUPED = ("on", "after")
_LISTED = ("always", "onDone")
INVOKE_TRANSITION_KEYS = ("onDone", "onError", "onSnapshot")


def draft_from_model(model: MachineModel) -> Draft:
    """A fresh expanded config of `model` (a deep copy: editing it never touches the model)."""
    config = copy.deepcopy(machine_to_config(model))
    _expand_state(config)
    return config


def draft_to_model(draft: Draft) -> MachineModel:
    """Parse the draft; a shape error here is a bug in an operation, so it is not hidden."""
    return parse_machine(draft)


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list | tuple) else [value]


def expand_transition(item: Any) -> dict[str, Any]:
    """A transition in object form: `"b"` becomes `{"target": "b"}`."""
    if item is None:
        return {}
    if isinstance(item, str):
        return {"target": item} if item else {}
    return dict(item)


def _expand_state(config: dict[str, Any]) -> None:
    for key in _GROUPED:
        if isinstance(config.get(key), dict):
            config[key] = {k: [expand_transition(t) for t in _as_list(v)] for k, v in config[key].items()}
    for key in _LISTED:
        if key in config:
            config[key] = [expand_transition(t) for t in _as_list(config[key])]
    for key in ("entry", "exit"):
        if key in config:
            config[key] = _as_list(config[key])
    if "invoke" in config:
        invokes = [dict(item) for item in _as_list(config["invoke"])]
        for item in invokes:
            for key in INVOKE_TRANSITION_KEYS:
                if key in item:
                    item[key] = [expand_transition(t) for t in _as_list(item[key])]
        config["invoke"] = invokes
    for child in (config.get("states") or {}).values():
        if isinstance(child, dict):
            _expand_state(child)


def state_config(draft: Draft, node: StateNode) -> dict[str, Any]:
    """The dict of `node` inside the draft (walks `states` along the node's path)."""
    config = draft
    for key in node.path:
        config = config["states"][key]
    return config


@dataclass(frozen=True)
class TransitionSlot:
    """Where a transition lives in a state's config: `on.X`, `always`, `after.N`, `onDone`, or an invoke's."""

    kind: str
    #: The `on` descriptor, the `after` key, or (invoke kinds) the invoke's index as text.
    key: str = ""


def transition_slot(node: StateNode, transition: Transition, draft_state: dict[str, Any]) -> TransitionSlot:
    """The slot of a parsed transition inside its source state's draft dict."""
    if transition.kind == "on":
        return TransitionSlot("on", transition.event)
    if transition.kind == "after":
        # The parser lists `after` groups in key order, so the n-th distinct delay is the n-th key.
        events: list[str] = []
        for t in node.transitions:
            if t.kind == "after" and t.event not in events:
                events.append(t.event)
        keys = _js_keys(list(draft_state.get("after") or {}))
        return TransitionSlot("after", keys[events.index(transition.event)])
    if transition.kind.startswith("invoke."):
        return TransitionSlot(transition.kind, str(transition.invoke_index))
    return TransitionSlot(transition.kind)


def _js_keys(keys: list[str]) -> list[str]:
    from statekit.model.jsorder import js_keys

    return js_keys(keys)


def slot_list(draft_state: dict[str, Any], slot: TransitionSlot, *, create: bool = False) -> list[dict[str, Any]]:
    """The list of transition dicts of `slot` (created empty when `create`)."""
    if slot.kind in ("on", "after"):
        groups = draft_state.get(slot.kind)
        if groups is None:
            if not create:
                return []
            groups = draft_state[slot.kind] = {}
        if slot.key not in groups:
            if not create:
                return []
            groups[slot.key] = []
        result: list[dict[str, Any]] = groups[slot.key]
        return result
    if slot.kind.startswith("invoke."):
        invoke = draft_state["invoke"][int(slot.key)]
        field = slot.kind.split(".", 1)[1]
        if field not in invoke:
            if not create:
                return []
            invoke[field] = []
        result = invoke[field]
        return result
    if slot.kind not in draft_state:
        if not create:
            return []
        draft_state[slot.kind] = []
    result = draft_state[slot.kind]
    return result


def iter_transition_dicts(
    draft: Draft, model: MachineModel
) -> Iterator[tuple[StateNode, list[dict[str, Any]], dict[str, Any]]]:
    """Every transition dict of the draft with its source node and the list holding it."""
    for node in model.root.walk():
        config = state_config(draft, node)
        for kind in _GROUPED:
            for group in (config.get(kind) or {}).values():
                for item in group:
                    yield node, group, item
        for kind in _LISTED:
            group = config.get(kind) or []
            for item in group:
                yield node, group, item
        for invoke in config.get("invoke") or []:
            for kind in INVOKE_TRANSITION_KEYS:
                group = invoke.get(kind) or []
                for item in group:
                    yield node, group, item


def render_target(model: MachineModel, source: StateNode, target: StateNode) -> str:
    """The shortest target string written on `source` that resolves to `target`.

    Children are written `.child`, siblings and their descendants `sibling.child`, anything
    else `#id` (dots escaped when the plain form would resolve elsewhere).
    """
    resolver = Resolver(model)
    candidates: list[str] = []
    if target.path[: len(source.path)] == source.path and len(target.path) > len(source.path):
        candidates.append("." + ".".join(_escape(k) for k in target.path[len(source.path):]))
    parent_path = source.path[:-1]
    if source.parent_id is not None and target.path[: len(parent_path)] == parent_path and len(target.path) > len(parent_path):
        candidates.append(".".join(_escape(k) for k in target.path[len(parent_path):]))
    candidates.append("#" + target.id)
    candidates.append("#" + _escape(target.id))
    for candidate in candidates:
        try:
            if resolver.resolve_target(source, candidate).id == target.id:
                return candidate
        except MachineDefinitionError:
            continue
    return "#" + _escape(target.id)


def _escape(key: str) -> str:
    return key.replace("\\", "\\\\").replace(".", "\\.")


def resolve_or_none(resolver: Resolver, source: StateNode, target: str) -> StateNode | None:
    """The node `target` names from `source`, or None when it does not resolve."""
    try:
        return resolver.resolve_target(source, target)
    except MachineDefinitionError:
        return None


def resolve_history_target(resolver: Resolver, parent: StateNode, target: str) -> StateNode | None:
    """A history state's default target: XState reads it as a path from the history's parent."""
    try:
        return resolver.node_by_path(parent, target)
    except MachineDefinitionError:
        return None


def render_history_target(model: MachineModel, parent: StateNode, target: StateNode) -> str:
    """The shortest history default target (a path from `parent`, else `#id`) naming `target`."""
    resolver = Resolver(model)
    candidates: list[str] = []
    if target.path[: len(parent.path)] == parent.path and len(target.path) > len(parent.path):
        candidates.append(".".join(_escape(k) for k in target.path[len(parent.path):]))
    candidates += ["#" + target.id, "#" + _escape(target.id)]
    for candidate in candidates:
        resolved = resolve_history_target(resolver, parent, candidate)
        if resolved is not None and resolved.id == target.id:
            return candidate
    return "#" + _escape(target.id)
