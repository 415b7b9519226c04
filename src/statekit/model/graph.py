"""The flat graph view of a machine, derived from the tree: nodes with parentId, and edges."""

from __future__ import annotations

from dataclasses import dataclass

from statekit.model.core import MachineModel, StateNode, Transition
from statekit.model.resolve import Resolver, resolve_targets


@dataclass(frozen=True, slots=True)
class GraphNode:
    id: str
    parent_id: str | None
    key: str
    type: str
    initial_id: str | None


@dataclass(frozen=True, slots=True)
class GraphEdge:
    """One transition as an edge; a transition with several targets gives one edge each."""

    id: str
    transition_id: str
    source_id: str
    #: The resolved target state id; a targetless transition points at its own source.
    target_id: str
    event: str
    kind: str
    targetless: bool


@dataclass(frozen=True, slots=True)
class MachineGraph:
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]


def machine_graph(model: MachineModel) -> MachineGraph:
    """Derive the graph view; unresolvable targets are left out (the validator reports them)."""
    nodes = tuple(_graph_node(node) for node in model.root.walk())
    resolver = Resolver(model)
    edges: list[GraphEdge] = []
    for transition in model.transitions():
        edges.extend(_edges(model, transition, resolver))
    return MachineGraph(nodes=nodes, edges=tuple(edges))


def _graph_node(node: StateNode) -> GraphNode:
    initial = node.child(node.initial) if node.initial else None
    return GraphNode(
        id=node.id, parent_id=node.parent_id, key=node.key, type=node.type, initial_id=initial.id if initial else None
    )


def _edges(model: MachineModel, transition: Transition, resolver: Resolver) -> list[GraphEdge]:
    if transition.targets is None:
        return [
            GraphEdge(transition.id, transition.id, transition.source_id, transition.source_id,
                      transition.event, transition.kind, True)
        ]
    resolved = resolve_targets(model, transition, resolver)
    return [
        GraphEdge(
            transition.id if len(resolved) == 1 else f"{transition.id}/{index}",
            transition.id, transition.source_id, target.id, transition.event, transition.kind, False,
        )
        for index, target in enumerate(resolved)
        if target is not None
    ]
