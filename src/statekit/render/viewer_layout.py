"""The layouts the interactive viewer draws: the per-parent PNGs' own layouts, in XGraph ids.

The viewer shows one parent at a time, exactly what `parent_view` draws for the PNG of that
parent. Rather than laying the level out again in the browser (with other rules and other
results), it receives the positions the engine computed for the PNG: frames, states, initial
markers, stubs for states outside the view, arrow routes and label boxes, in points with y
pointing down. States and transitions are named by their XGraph ids, so the viewer links each
drawn item to the graph it reads from `graphJson`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from statekit.model.core import MachineModel
from statekit.render.dot import edge_indexes
from statekit.render.edges import DrawnEdge
from statekit.render.geometry import Box, TextLine
from statekit.render.layout import LaidOutDrawing

#: The version of the layout document; the viewer ignores layouts of another version.
LAYOUT_VERSION = 1


def _box(box: Box) -> list[float]:
    return box.rounded()


def _lines(lines: tuple[TextLine, ...]) -> list[list[Any]]:
    """`[text, left, baseline, width, font size]` per line (padding spaces kept: the width
    the engine measured includes them)."""
    return [
        [line.text, round(line.x, 1), round(line.baseline, 1), round(line.width, 1), line.size] for line in lines
    ]


def _points(points: Iterable[tuple[float, float]]) -> list[list[float]]:
    return [[round(x, 1), round(y, 1)] for x, y in points]


def viewer_layouts(
    model: MachineModel,
    graph: dict[str, Any],
    drawings: dict[str, LaidOutDrawing],
    edges: tuple[DrawnEdge, ...],
    direction: str,
) -> dict[str, Any]:
    """`{version, direction, views: {parent XGraph id: view}}` for the drawings of each parent."""
    node_ids = {node.id: item["id"] for node, item in zip(model.root.walk(), graph["nodes"], strict=True)}
    transitions = [transition for node in model.root.walk() for transition in node.transitions]
    edge_ids = {id(t): item["id"] for t, item in zip(transitions, graph["edges"], strict=True)}
    views: dict[str, Any] = {}
    for parent_id, drawing in drawings.items():
        views[node_ids[parent_id]] = _view(model, drawing, parent_id, node_ids, edge_ids, edges)
    return {"version": LAYOUT_VERSION, "direction": direction, "views": views}


def _view(
    model: MachineModel,
    drawing: LaidOutDrawing,
    parent_id: str,
    node_ids: dict[str, str],
    edge_ids: dict[int, str],
    edges: tuple[DrawnEdge, ...],
) -> dict[str, Any]:
    layout = drawing.layout
    states_by_name = {name: state_id for state_id, name in drawing.names.items()}
    frames: list[dict[str, Any]] = []
    for name, frame in layout.frames.items():
        state_id = states_by_name.get(name.removeprefix("cluster_"))
        if state_id is None:
            continue
        frames.append(
            {
                "id": node_ids[state_id],
                "root": state_id == parent_id,
                "box": _box(frame.box),
                "title": _box(frame.title) if frame.title is not None else None,
                "lines": _lines(frame.lines),
            }
        )
    states: list[dict[str, Any]] = []
    initials: list[dict[str, Any]] = []
    stubs: list[dict[str, Any]] = []
    for name, node in layout.nodes.items():
        if name in states_by_name:
            state_id = states_by_name[name]
            state = model.nodes[state_id]
            states.append(
                {
                    "id": node_ids[state_id],
                    "box": _box(node.box),
                    "lines": _lines(node.lines),
                    "collapsed": bool(state.children),
                }
            )
        elif name.startswith("i") and name[1:] in states_by_name:
            initials.append({"of": node_ids[states_by_name[name[1:]]], "box": _box(node.box)})
        elif node.node_id.startswith("stub:"):
            target = node.node_id.removeprefix("stub:")
            stubs.append({"id": node_ids.get(target, target), "box": _box(node.box), "lines": _lines(node.lines)})
    drawn_edges: list[dict[str, Any]] = []
    for edge in layout.edges:
        initial_of = None
        if edge.edge_id.startswith("i") and edge.edge_id[1:] in states_by_name:
            initial_of = node_ids[states_by_name[edge.edge_id[1:]]]
        ids = list(dict.fromkeys(edge_ids[id(edges[index].transition)] for index in edge_indexes(edge.edge_id)))
        if initial_of is None and not ids:
            continue
        # Bezier control points (1 + 3n), then the arrowhead's tip when the route ends in one
        has_tip = (len(edge.points) - 1) % 3 == 1
        curve = edge.points[:-1] if has_tip else edge.points
        drawn_edges.append(
            {
                "ids": ids,
                "initialOf": initial_of,
                "points": _points(curve),
                "tip": _points(edge.points[-1:])[0] if has_tip else None,
                "dashed": edge.dashed,
                "label": {"box": _box(edge.label), "lines": _lines(edge.lines)} if edge.label and edge.lines else None,
            }
        )
    return {
        "width": round(layout.width, 1),
        "height": round(layout.height, 1),
        "frames": frames,
        "states": states,
        "initials": initials,
        "stubs": stubs,
        "edges": drawn_edges,
    }
