"""Bindings: which workflow states a tool is visible in, and which event a success fires.

Everything here is checked once, when a tool is registered, against the machine's
model: a state that does not exist, or an event that none of the bound states can
handle, raises `GateConfigError`. A typo in a binding must stop the server from
starting rather than silently leave a tool visible forever (or never).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from statekit.gate.errors import GateConfigError
from statekit.model.graph import machine_graph


@dataclass(frozen=True)
class Binding:
    """A tool's place in the workflow.

    `state_paths` are dotted paths from the root (`"review.pending"`), the form
    `snapshot.matches` takes; empty means the tool is not state-bound (always
    visible). `event` is fired after a successful call, or None.
    """

    tool: str
    state_paths: tuple[str, ...]
    event: str | None

    @property
    def is_state_bound(self) -> bool:
        """True when the tool is visible only in some states."""
        return bool(self.state_paths)


def _nodes(model: Any) -> Mapping[str, Any]:
    nodes: Mapping[str, Any] = model.nodes
    return nodes


def resolve_state(model: Any, name: str) -> Any:
    """The state node `name` designates: a state id (`invoice.review`, `#custom`) or a dotted path.

    Paths are relative to the root (`review.pending`); ids are tried first, as
    XState resolves `#id` targets.
    """
    nodes = _nodes(model)
    key = name[1:] if name.startswith("#") else name
    if key in nodes:
        node = nodes[key]
    else:
        wanted = tuple(key.split("."))
        matches = [node for node in nodes.values() if tuple(node.path) == wanted]
        if not matches:
            known = sorted(".".join(node.path) for node in nodes.values() if node.path)
            raise GateConfigError(f"unknown state {name!r}; states are: {', '.join(known)}")
        node = matches[0]
    if not tuple(node.path):
        raise GateConfigError(
            f"{name!r} is the machine's root; leave the tool unbound to make it always visible"
        )
    return node


def descriptor_matches(descriptor: str, event: str) -> bool:
    """XState v5 event descriptor matching: exact, `*`, or a `prefix.*` wildcard."""
    if descriptor in (event, "*"):
        return True
    if descriptor.endswith(".*"):
        prefix = descriptor[:-2]
        return event == prefix or event.startswith(prefix + ".")
    return False


def _handles(node: Any, event: str) -> bool:
    return any(
        transition.kind == "on" and descriptor_matches(transition.event, event)
        for transition in node.transitions
    )


def state_handles_event(model: Any, node: Any, event: str) -> bool:
    """True when, somewhere in `node`, some transition can take `event`.

    While the workflow is in `node` it is also in every ancestor and in some
    descendant, so a transition on any of those counts.
    """
    path = tuple(node.path)
    for other in _nodes(model).values():
        other_path = tuple(other.path)
        related = other_path[: len(path)] == path or path[: len(other_path)] == other_path
        if related and _handles(other, event):
            return True
    return False


def reachable_state_ids(model: Any) -> frozenset[str]:
    """The ids of the states the workflow can ever be in, ignoring guards (an over-approximation).

    From the root: a compound state enters its initial child, a parallel state all its
    children, a history state may restore any sibling, a state's ancestors are active with
    it, and every transition of an active state may take the workflow to its targets.
    """
    nodes = _nodes(model)
    targets: dict[str, list[str]] = {}
    for edge in machine_graph(model).edges:
        targets.setdefault(edge.source_id, []).append(edge.target_id)
    root = model.root
    reached: set[str] = set()
    pending = [root.id]
    while pending:
        state_id = pending.pop()
        if state_id in reached or state_id not in nodes:
            continue
        reached.add(state_id)
        node = nodes[state_id]
        if node.parent_id is not None:
            pending.append(node.parent_id)
        if node.type == "parallel":
            pending.extend(child.id for child in node.children)
        elif node.initial:
            pending.extend(child.id for child in node.children if child.key == node.initial)
        if node.type == "history" and node.parent_id is not None:
            pending.extend(child.id for child in nodes[node.parent_id].children)
        pending.extend(targets.get(state_id, ()))
    return frozenset(reached)


def make_binding(
    model: Any,
    tool: str,
    states: str | Iterable[str] | None,
    event: str | None,
    reachable: frozenset[str] | None = None,
) -> Binding:
    """Check a binding against the model and return it; raises `GateConfigError` when it is wrong.

    `states=None` means "always visible"; an empty list is refused, since it would be read
    the same way although it looks like "never".
    """
    if states is not None and not isinstance(states, str):
        states = list(states)
        if not states:
            raise GateConfigError(
                f"tool {tool!r}: an empty state list would leave it visible in every state; "
                "pass states=None for an always-visible tool, or name its states"
            )
    names = [states] if isinstance(states, str) else list(states or ())
    nodes = [resolve_state(model, name) for name in names]
    if nodes and reachable is not None and not any(node.id in reachable for node in nodes):
        where = ", ".join(repr(".".join(node.path)) for node in nodes)
        raise GateConfigError(
            f"tool {tool!r} is bound to {where}, which the workflow can never reach from its "
            "initial state, so the tool could never be called"
        )
    if event is not None:
        if not isinstance(event, str) or not event:
            raise GateConfigError(f"tool {tool!r}: on_success must be a non-empty event type")
        candidates = nodes or [node for node in _nodes(model).values() if tuple(node.path)]
        if not any(state_handles_event(model, node, event) for node in candidates):
            where = ", ".join(repr(".".join(node.path)) for node in nodes) or "any state"
            raise GateConfigError(
                f"tool {tool!r}: event {event!r} is not handled in {where}, so a successful "
                "call could never move the workflow"
            )
    paths = tuple(dict.fromkeys(".".join(node.path) for node in nodes))
    return Binding(tool=tool, state_paths=paths, event=event)
