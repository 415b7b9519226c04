"""Machine snapshots: immutable, with the state value, tags and meta derived on demand."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from statekit.engine.evaluation import plain_json
from statekit.model.jsorder import js_keys
from statekit.model.resolve import to_state_path

if TYPE_CHECKING:
    from statekit.engine.machine import Machine, Node

Status = Literal["active", "done", "error", "stopped"]
StateValue = str | dict[str, Any]


@dataclass(frozen=True, slots=True)
class ChildRef:
    """An invoked or spawned child as the pure engine sees it: it never runs."""

    id: str
    src: str | None
    input: Any = None
    system_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "src": self.src}
        if self.input is not None:
            data["input"] = self.input
        if self.system_id is not None:
            data["systemId"] = self.system_id
        return data


class Snapshot:
    """A machine snapshot (XState's `MachineSnapshot`). Treat it as immutable.

    `nodes` keeps XState's `_nodes` order (insertion order of the active set), which the
    algorithm depends on; the state value is computed from it on first use.
    """

    __slots__ = ("_derived_from", "_node_set", "_proper", "_tags", "_value", "children", "context", "error", "history", "machine",
                 "nodes", "output", "status")

    def __init__(
        self,
        machine: Machine,
        nodes: tuple[Node, ...],
        context: Any,
        status: Status = "active",
        output: Any = None,
        error: Any = None,
        children: Mapping[str, ChildRef | None] | None = None,
        history: Mapping[str, tuple[Node, ...]] | None = None,
    ) -> None:
        self.machine = machine
        self.nodes = nodes
        self.context = context
        self.status: Status = status
        self.output = output
        self.error = error
        self.children: Mapping[str, ChildRef | None] = children if children is not None else {}
        self.history: Mapping[str, tuple[Node, ...]] = history if history is not None else {}
        self._value: StateValue | None = None
        #: Whether `nodes` is a proper configuration (see `is_proper`); None: not known yet.
        self._proper: bool | None = None
        #: `(previous value, changed node)` when this snapshot's value is the previous one with
        #: only the changed node's part read anew (`value_after`), computed on first use.
        self._derived_from: tuple[StateValue, Node] | None = None
        self._tags: frozenset[str] | None = None
        self._node_set: frozenset[Node] | None = None

    def clone(self, **changes: Any) -> Snapshot:
        """A new snapshot object with some fields replaced (XState's `cloneMachineSnapshot`)."""
        copy = Snapshot.__new__(Snapshot)
        copy.machine = self.machine
        copy.nodes = changes.get("nodes", self.nodes)
        copy.context = changes.get("context", self.context)
        copy.status = changes.get("status", self.status)
        copy.output = changes.get("output", self.output)
        copy.error = changes.get("error", self.error)
        copy.children = changes.get("children", self.children)
        copy.history = changes.get("history", self.history)
        same_nodes = copy.nodes is self.nodes
        copy._value = self._value if same_nodes else None
        copy._proper = self._proper if same_nodes else None
        copy._derived_from = self._derived_from if same_nodes else None
        copy._tags = self._tags if same_nodes else None
        copy._node_set = self._node_set if same_nodes else None
        return copy

    def with_context(self, context: Any) -> Snapshot:
        """`clone(context=context)`, the common case (every assign), without the keyword plumbing."""
        copy = Snapshot.__new__(Snapshot)
        copy.machine = self.machine
        copy.nodes = self.nodes
        copy.context = context
        copy.status = self.status
        copy.output = self.output
        copy.error = self.error
        copy.children = self.children
        copy.history = self.history
        copy._value = self._value
        copy._proper = self._proper
        copy._derived_from = self._derived_from
        copy._tags = self._tags
        copy._node_set = self._node_set
        return copy

    def replace_nodes(self, nodes: tuple[Node, ...], history: Mapping[str, tuple[Node, ...]]) -> None:
        """Set the node list and history in place: only for a snapshot the algorithm made in the
        current microstep and has not handed out (XState clones; nothing can tell the difference)."""
        if nodes is not self.nodes:
            self.nodes = nodes
            self._value = None
            self._proper = None
            self._derived_from = None
            self._tags = None
            self._node_set = None
        self.history = history

    def is_proper(self) -> bool:
        """Whether the node set is a proper configuration: complete (every node's parent, every
        region of an active parallel state) with exactly one active child per compound state.
        XState's own quirks can leave a configuration short or doubled; then what depends on
        this reads the state value the long way, as XState does."""
        if self._proper is None:
            self._proper = _adjacency(self.nodes, check=True) is not None
        return self._proper

    def derive(self, previous: Snapshot, changed: Node | None, part_is_proper: bool) -> None:
        """Note that only the part below `changed` (which stayed active) differs from `previous`,
        and whether that part is a proper configuration; with `changed` None, only that every
        changed part is one."""
        if not previous.is_proper():
            return
        self._proper = part_is_proper
        if part_is_proper and changed is not None and previous._value is not None:
            self._derived_from = (previous._value, changed)

    @property
    def node_set(self) -> frozenset[Node]:
        if self._node_set is None:
            self._node_set = frozenset(self.nodes)
        return self._node_set

    @property
    def value(self) -> StateValue:
        """The state value: a string for one atomic child, else a nested dict."""
        if self._value is None:
            # The value depends only on the node list, so the machine caches it per list.
            derived = self._derived_from
            if derived is not None:
                self._derived_from = None
                self._value = value_after(derived[0], derived[1], self.nodes)
                return self._value
            cache = self.machine.values
            known = cache.get(self.nodes)
            if known is None:
                known = state_value_of(self.machine, self.nodes)
                if len(cache) >= 8192:
                    cache.clear()
                cache[self.nodes] = known
            self._value, proper = known
            self._proper = proper
        return self._value

    @property
    def tags(self) -> frozenset[str]:
        if self._tags is None:
            self._tags = frozenset(tag for node in self.nodes for tag in node.tags)
        return self._tags

    def has_tag(self, tag: str) -> bool:
        return tag in self.tags

    def matches(self, value: StateValue) -> bool:
        """XState's `snapshot.matches(parentStateValue)`."""
        return matches_state(value, self.value)

    def can(self, event: Mapping[str, Any] | str) -> bool:
        """Whether `event` would select a transition that does something (XState's `can`)."""
        from statekit.engine.algorithm import select_transitions

        if isinstance(event, str):
            event = {"type": event}
        transitions = select_transitions(self, event)
        return any(t.target is not None or t.actions for t in transitions)

    def get_meta(self) -> dict[str, Any]:
        """`{state id: meta}` of the active nodes that have meta."""
        return {node.id: node.meta for node in self.nodes if node.meta is not None}

    def to_json(self) -> dict[str, Any]:
        """A JSON-safe, persistable form (`restore_snapshot` reads it back)."""
        return {
            "value": self.value,
            "context": plain_json(self.context),
            "status": self.status,
            "output": plain_json(self.output),
            "error": self.error if _is_json(self.error) else str(self.error),
            "tags": sorted(self.tags),
            "children": {key: child.to_json() if child else None for key, child in self.children.items()},
            "historyValue": {key: [{"id": node.id} for node in nodes] for key, nodes in self.history.items()},
        }

    def __repr__(self) -> str:
        return f"<Snapshot {self.value!r} status={self.status}>"


def _is_json(value: Any) -> bool:
    """Whether `value` is plain JSON data (an event's `error` usually is; an exception is not)."""
    if value is None or isinstance(value, str | int | float | bool):
        return True
    if isinstance(value, list):
        return all(_is_json(item) for item in value)
    if isinstance(value, dict):
        return all(isinstance(key, str) and _is_json(item) for key, item in value.items())
    return False


def state_value(machine: Machine, nodes: tuple[Node, ...]) -> StateValue:
    """XState's `getStateValue(root, _nodes)` (see `state_value_of`)."""
    return state_value_of(machine, nodes)[0]


def state_value_of(machine: Machine, nodes: tuple[Node, ...]) -> tuple[StateValue, bool]:
    """XState's `getStateValue(root, _nodes)`: complete the set, then read the adjacency.

    Children are listed in `_nodes` order, then in `Object.keys` order (array-index keys
    first), as XState's object would list them. The node list of a snapshot is complete
    (every active node's parent, an active child of every compound state, every region of a
    parallel one), except a set given from outside (a restored value), which is completed
    first with `getAllStateNodes` (which changes nothing in a complete one). Also says
    whether `nodes` is a proper configuration (`Snapshot.is_proper`).
    """
    from statekit.engine.algorithm import all_state_nodes

    adjacency = _adjacency(nodes, check=True)
    proper = adjacency is not None
    if adjacency is None:
        adjacency = _adjacency(all_state_nodes(nodes), check=False)
        assert adjacency is not None
    root = machine.root
    if root not in adjacency:
        return {}, proper
    return _value_from_adjacency(root, adjacency), proper


def value_after(previous: StateValue, changed: Node, nodes: tuple[Node, ...]) -> StateValue:
    """The state value of the proper configuration `nodes` whose part below `changed` alone
    differs from the one whose value is `previous`.

    `changed` stayed active and so kept its place in the node list, so every object above it
    lists its keys as before; only `changed`'s own part is read anew, from its active
    descendants in `nodes` order.
    """
    below = changed.descendants
    part = (changed, *(node for node in nodes if node in below))
    adjacency: dict[Node, list[Node]] = {node: [] for node in part}
    for node in part[1:]:
        adjacency[node.parent].append(node)  # type: ignore[index]
    value = _value_from_adjacency(changed, adjacency)
    if changed.parent is None:
        return value
    path = [ancestor.key for ancestor in reversed(changed.ancestors[:-1])]
    return _replaced(previous, path, changed.key, value)


def _replaced(value: StateValue, path: list[str], key: str, part: StateValue) -> StateValue:
    """`value` with the object at `path` holding `part` under `key` (copies along the path)."""
    assert isinstance(value, dict)
    copy = dict(value)
    copy[path[0] if path else key] = _replaced(value[path[0]], path[1:], key, part) if path else part
    return copy


def _adjacency(nodes: tuple[Node, ...], *, check: bool) -> dict[Node, list[Node]] | None:
    """The active children of each active node; with `check`, None if `nodes` is not proper.

    (A set `getAllStateNodes` completed is read as it is, even where a corrupted
    configuration leaves it short, as XState reads it.)
    """
    adjacency: dict[Node, list[Node]] = {node: [] for node in nodes}
    for node in nodes:
        parent = node.parent
        if parent is not None:
            siblings = adjacency.get(parent)
            if siblings is None:
                if check:
                    return None
                siblings = adjacency[parent] = []
            siblings.append(node)
    if not check:
        return adjacency
    for node, children in adjacency.items():
        kind = node.type
        if kind == "compound":
            if len(children) != 1:
                return None
        elif kind == "parallel" and len(children) < len(node.regions):
            return None
    return adjacency


def _value_from_adjacency(node: Node, adjacency: dict[Node, list[Node]]) -> StateValue:
    children = adjacency[node]
    if not children:
        return {}
    if node.type == "compound":
        first = children[0]
        if first.type in ("atomic", "final"):
            return first.key
    value = {child.key: _value_from_adjacency(child, adjacency) for child in children}
    if node.index_keyed_children and len(value) > 1:
        return {key: value[key] for key in js_keys(value)}
    return value


def to_state_value(value: Any) -> Any:
    """A dotted path becomes a nested state value (XState's `toStateValue`)."""
    if isinstance(value, str):
        path = to_state_path(value)
        if len(path) == 1:
            return path[0]
        result: dict[str, Any] = {}
        marker = result
        for index in range(len(path) - 1):
            if index == len(path) - 2:
                marker[path[index]] = path[index + 1]
            else:
                inner: dict[str, Any] = {}
                marker[path[index]] = inner
                marker = inner
        return result
    return value


def matches_state(parent_value: Any, child_value: Any) -> bool:
    """XState's `matchesState(parentStateId, childStateId)`."""
    parent = to_state_value(parent_value)
    child = to_state_value(child_value)
    if isinstance(child, str):
        return isinstance(parent, str) and child == parent
    if isinstance(parent, str):
        return parent in child
    return all(key in child and matches_state(parent[key], child[key]) for key in parent)
