"""Plan test paths from a machine: every reachable transition is exercised by some path.

Paths come from the `@xstate/graph`-style traversal in `statekit.analysis.paths`: the
breadth-first tree gives a shortest path to every state; a path runs to each leaf of that
tree, and one more runs through every edge that is not a tree edge.
"""

from __future__ import annotations

import copy
from typing import Any

from statekit.analysis.paths import EventEnumerator, coverage_targets, explore
from statekit.analysis.paths_graph import StateGraph
from statekit.analysis.paths_trace import step_transitions
from statekit.analysis.simulate import ImplementedMachine, build_simulation_machine
from statekit.engine.api import initial_transition
from statekit.errors import ToolError
from statekit.model.core import MachineModel
from statekit.verify.report import ratio

MAX_PATHS = 200
TRAVERSAL_LIMIT = 20_000


def _tree(graph: StateGraph) -> list[tuple[int, int] | None]:
    parent: list[tuple[int, int] | None] = [None] * len(graph.states)
    seen = [False] * len(graph.states)
    seen[0] = True
    order = [0]
    for state in order:
        for index, edge in enumerate(graph.edges[state]):
            if not seen[edge.target]:
                seen[edge.target] = True
                parent[edge.target] = (state, index)
                order.append(edge.target)
    return parent


def _edges_to(state: int, parent: list[tuple[int, int] | None]) -> list[tuple[int, int]]:
    chain: list[tuple[int, int]] = []
    while (link := parent[state]) is not None:
        chain.append(link)
        state = link[0]
    return list(reversed(chain))


def plan_paths(implemented: ImplementedMachine,
               guards: dict[str, bool] | None = None) -> tuple[list[dict[str, Any]], dict[str, Any], bool]:
    """`(paths, model coverage, truncated)` for the machine, run with its implementations."""
    machine, _normalization = build_simulation_machine(implemented, guards)
    model = implemented.model
    if machine.max_iterations is None:
        machine.max_iterations = 10_000
    initial, _ = initial_transition(machine)
    if initial.status == "error":
        raise ToolError("invalid_input", f"the machine fails on start: {initial.error}")
    graph = explore(machine, initial, EventEnumerator(), TRAVERSAL_LIMIT, None)
    parent = _tree(graph)
    tree_edges = {link for link in parent if link is not None}
    has_children = {link[0] for link in tree_edges}
    routes: list[list[tuple[int, int]]] = []
    for state in range(len(graph.states)):
        if state != 0 and state not in has_children:
            routes.append(_edges_to(state, parent))
    for state, edges in enumerate(graph.edges):
        for index in range(len(edges)):
            if (state, index) not in tree_edges:
                routes.append([*_edges_to(state, parent), (state, index)])
    truncated = len(routes) > MAX_PATHS
    routes = routes[:MAX_PATHS]
    state_ids, transitions = coverage_targets(model)
    active: set[str] = {node.id for node in initial.nodes}
    taken: set[str] = set()
    paths: list[dict[str, Any]] = []
    for number, route in enumerate(routes, start=1):
        steps: list[dict[str, Any]] = []
        for state, index in route:
            edge = graph.edges[state][index]
            after, selected = step_transitions(graph.states[state], edge.event)
            ids = [t.model.id for t in selected if t.model is not None]
            taken.update(ids)
            active.update(node.id for node in after.nodes)
            steps.append({"event": dict(edge.event), "state": copy.deepcopy(after.value), "transitionIds": ids})
        description = " → ".join(step["event"]["type"] for step in steps) or "(initial state)"
        paths.append({"id": f"path-{number}", "description": description, "steps": steps})
    if not routes:
        paths.append({"id": "path-1", "description": "(initial state)", "steps": []})
    coverage = {
        "states": ratio(sum(1 for s in state_ids if s in active), len(state_ids)),
        "transitions": ratio(sum(1 for t in transitions if t.id in taken), len(transitions)),
    }
    return paths, coverage, truncated


def executed_coverage(model: MachineModel, paths: list[dict[str, Any]], results: list[dict[str, Any]],
                      initial_state_ids: set[str]) -> dict[str, Any]:
    """Coverage of the paths that passed."""
    state_ids, transitions = coverage_targets(model)
    passed = {r["pathId"] for r in results if r.get("status") == "passed"}
    taken: set[str] = set()
    reached_values: list[Any] = []
    for path in paths:
        if path["id"] in passed:
            for step in path["steps"]:
                taken.update(step.get("transitionIds", []))
                reached_values.append(step["state"])
    active = set(initial_state_ids) if passed else set()
    for value in reached_values:
        active.update(_ids_of_value(model, value))
    return {
        "states": ratio(sum(1 for s in state_ids if s in active), len(state_ids)),
        "transitions": ratio(sum(1 for t in transitions if t.id in taken), len(transitions)),
    }


def _ids_of_value(model: MachineModel, value: Any) -> set[str]:
    ids: set[str] = set()

    def walk(node_id: str, sub: Any) -> None:
        node = model.nodes.get(node_id)
        if node is None:
            return
        if isinstance(sub, str):
            child = node.child(sub)
            if child is not None:
                ids.add(child.id)
        elif isinstance(sub, dict):
            for key, inner in sub.items():
                child = node.child(key)
                if child is not None:
                    ids.add(child.id)
                    walk(child.id, inner)

    walk(model.root.id, value)
    return ids
