"""Laying a drawing out: the engine places states and arrows, then statekit places the labels.

1. `dot` lays the DOT text out (`-Tjson`).
2. A parallel state whose regions make one long strip is laid out again with its regions in
   rows (invisible rank constraints between regions), near a readable aspect ratio.
3. Every edge label gets a spot clear of states, frames, other labels and arrows
   (`placement.place_labels`); where none is free, the layout is tried again with more room.
4. `neato -n2` draws those positions as they are, writing the image and the JSON of what it
   drew in one run: the PNG, the SVG and the interactive viewer all show this one layout.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from statekit.model.core import MachineModel
from statekit.render.dot import (
    DrawOptions,
    Placement,
    WrapRows,
    edge_indexes,
    machine_dot,
    rankdir,
    view_names,
)
from statekit.render.edges import DrawnEdge, drawn_edges
from statekit.render.engine import LayoutEngine, run_engine, run_engine_formats
from statekit.render.geometry import Box, Layout, parse_layout
from statekit.render.placement import PlacedLabel, place_labels

#: The width/height a wrapped parallel state aims for.
TARGET_ASPECT = 1.6
#: A parallel state's regions are wrapped when its one-row strip is wider (or taller) than this.
MAX_ASPECT = 2.5
#: Gap between regions (points), as dot leaves between sibling clusters.
_REGION_GAP = 16.0
#: Spacing factors tried when some label finds no free spot.
_MORE_ROOM = (1.6, 2.4)


@dataclass(frozen=True)
class LaidOutDrawing:
    #: Output format -> bytes (e.g. "png").
    outputs: dict[str, bytes]
    #: What the image shows, read back from the engine (screen coordinates, points).
    layout: Layout
    #: State id -> DOT node name (`sN`; a frame is `cluster_sN`).
    names: dict[str, str]
    #: Labels that found no free spot even with more room (a frame may have grown around some).
    crowded: int


def lay_out(
    model: MachineModel,
    options: DrawOptions,
    engine: LayoutEngine,
    formats: tuple[str, ...],
    *,
    edges: tuple[DrawnEdge, ...] | None = None,
    extra_args: tuple[str, ...] = (),
) -> LaidOutDrawing:
    """Lay out `options`' part of `model` and draw it in each of `formats`."""
    edges = edges if edges is not None else drawn_edges(model)
    names = view_names(model, options)

    def first_pass(wrap: WrapRows | None, spacing: float, narrow: frozenset[int] = frozenset()) -> Layout:
        dot = machine_dot(model, options, edges, wrap=wrap, spacing=spacing, narrow=narrow)
        return parse_layout(run_engine(engine, dot, "json"))

    layout = first_pass(None, 1.0)
    wrap = wrap_rows(model, options, names, layout)
    if wrap is not None:
        layout = first_pass(wrap, 1.0)
    labels = place_labels(layout)
    narrow: frozenset[int] = frozenset()
    chosen_narrow = narrow
    for spacing in _MORE_ROOM:
        if not _crowded(labels):
            break
        narrow |= {index for label in labels if label.crowded for index in edge_indexes(label.edge_id)}
        roomier = first_pass(wrap, spacing, narrow)
        roomier_labels = place_labels(roomier)
        if _crowded(roomier_labels) < _crowded(labels):
            layout, labels, chosen_narrow = roomier, roomier_labels, narrow
    dot = machine_dot(model, options, edges, placement=_placement(layout, labels), narrow=chosen_narrow)
    outputs = run_engine_formats(engine, dot, (*formats, "json"), ("-Kneato", "-n2", *extra_args))
    final = parse_layout(outputs.pop("json"))
    return LaidOutDrawing(outputs, final, names, _crowded(labels))


def _crowded(labels: list[PlacedLabel]) -> int:
    return sum(1 for label in labels if label.crowded)


def _placement(layout: Layout, labels: list[PlacedLabel]) -> Placement:
    """The first pass's positions with the labels moved to their spots (Graphviz y-up)."""
    spots = {label.edge_id: label.box for label in labels}
    grown = _grown_frames(layout, labels)
    flip = layout.height
    nodes: dict[str, str] = {}
    clusters: dict[str, tuple[str, str]] = {}
    for item in layout.document.get("objects", []):
        name = str(item.get("name", ""))
        if "bb" in item:
            bb = str(item["bb"])
            if name in grown:
                box = grown[name]
                bb = f"{box.x0:.2f},{flip - box.y1:.2f},{box.x1:.2f},{flip - box.y0:.2f}"
            clusters[name] = (bb, str(item.get("lp", "0,0")))
        elif "pos" in item:
            nodes[name] = str(item["pos"])
    before = {edge.edge_id: edge.label for edge in layout.edges}
    routes: dict[str, tuple[str, str | None]] = {}
    for item in layout.document.get("edges", []):
        edge_id = str(item.get("id", ""))
        if not edge_id or "pos" not in item:
            continue
        spot, old, centre = spots.get(edge_id), before.get(edge_id), item.get("lp") or item.get("xlp")
        label = None
        if spot is not None and old is not None and centre is not None:
            # move `lp` (the label's centre, Graphviz y-up) as far as the text box moved
            x, y = (float(part) for part in str(centre).split(","))
            label = f"{x + spot.x0 - old.x0:.2f},{y - (spot.y0 - old.y0):.2f}"
        routes[edge_id] = (str(item["pos"]), label)
    x0, y0, x1, y1 = (float(part) for part in str(layout.document["bb"]).split(","))
    for box in grown.values():
        x0, x1 = min(x0, box.x0), max(x1, box.x1)
        y0, y1 = min(y0, flip - box.y1), max(y1, flip - box.y0)
    return Placement(f"{x0:.2f},{y0:.2f},{x1:.2f},{y1:.2f}", nodes, clusters, routes)


#: Room left between a grown frame and the label it grew around (points).
_FRAME_MARGIN = 4.0


def _grown_frames(layout: Layout, labels: list[PlacedLabel]) -> dict[str, Box]:
    """Frames grown around labels that found no free spot only because they cross the frame's
    border: the frame (and every frame around it) takes the label in, where that makes the
    frame cover nothing it did not hold before."""
    frames = {name: frame.box for name, frame in layout.frames.items()}
    for label in labels:
        if not label.crowded:
            continue
        box = label.box
        for name in [name for name, frame in frames.items() if box.overlaps(frame) and not box.inside(frame)]:
            proposal = dict(frames)
            proposal[name] = _union(frames[name], box, _FRAME_MARGIN)
            for other, frame in frames.items():  # frames around it grow with it
                if other != name and layout.frames[name].box.inside(frame):
                    proposal[other] = _union(frame, proposal[name], _FRAME_MARGIN * 2)
            if _covers_nothing_new(layout, frames, proposal, [other for other in labels if other is not label]):
                frames = proposal
    return {name: box for name, box in frames.items() if box != layout.frames[name].box}


def _union(inner: Box, extra: Box, margin: float) -> Box:
    return Box(
        min(inner.x0, extra.x0 - margin),
        min(inner.y0, extra.y0 - margin),
        max(inner.x1, extra.x1 + margin),
        max(inner.y1, extra.y1 + margin),
    )


def _covers_nothing_new(
    layout: Layout, before: dict[str, Box], after: dict[str, Box], others: list[PlacedLabel]
) -> bool:
    for name, box in after.items():
        if box == before[name]:
            continue
        old = before[name]
        for node in layout.nodes.values():
            if node.visible and box.overlaps(node.box) and not node.box.inside(old):
                return False
        for other, frame in before.items():
            related = frame.inside(old) or old.inside(frame)
            if other != name and not related and box.overlaps(frame):
                return False
        for other_label in others:
            if box.overlaps(other_label.box) and not other_label.box.inside(old):
                return False
    return True


def wrap_rows(model: MachineModel, options: DrawOptions, names: dict[str, str], layout: Layout) -> WrapRows | None:
    """Rows for each parallel state whose regions form a strip far from TARGET_ASPECT."""
    flow = rankdir(options.direction)
    across_x = flow in ("TB", "BT")
    rows: dict[str, tuple[int, tuple[tuple[str, str], ...]]] = {}
    for state_id, name in names.items():
        node = model.nodes[state_id]
        frame = layout.frames.get(f"cluster_{name}")
        if node.type != "parallel" or frame is None or len(node.children) < 2:
            continue
        extents: list[Box] = []
        ends: list[tuple[str, str]] = []
        for region in node.children:
            region_name = names.get(region.id)
            if region_name is None:
                break
            region_frame = layout.frames.get(f"cluster_{region_name}")
            if region_frame is None:
                laid = layout.nodes.get(region_name)
                if laid is None:
                    break
                extents.append(laid.box)
                ends.append((region_name, region_name))
                continue
            extents.append(region_frame.box)
            ends.append(_ends(layout, region_frame.members, flow))
        else:
            sizes = [(b.width, b.height) if across_x else (b.height, b.width) for b in extents]
            columns = _columns(sizes, across_x)
            if columns < len(sizes):
                rows[state_id] = (columns, tuple(ends))
    return WrapRows(rows) if rows else None


def _ends(layout: Layout, members: tuple[str, ...], flow: str) -> tuple[str, str]:
    """A region's last-ranked node and its first-ranked node, by position along the flow."""
    laid = [layout.nodes[name] for name in members if name in layout.nodes]

    def along(name_box: Box) -> float:
        centre_x, centre_y = (name_box.x0 + name_box.x1) / 2, (name_box.y0 + name_box.y1) / 2
        return {"TB": centre_y, "BT": -centre_y, "LR": centre_x, "RL": -centre_x}[flow]

    ordered = sorted(laid, key=lambda node: (along(node.box), node.name))
    return ordered[-1].name, ordered[0].name


def _columns(sizes: list[tuple[float, float]], across_x: bool) -> int:
    """Regions per row (sizes are (across, along) each) whose block is nearest TARGET_ASPECT;
    all in one row unless that row is past MAX_ASPECT."""

    def aspect(columns: int) -> float:
        rows = [sizes[start : start + columns] for start in range(0, len(sizes), columns)]
        across = max(sum(size[0] for size in row) + _REGION_GAP * (len(row) - 1) for row in rows)
        along = sum(max(size[1] for size in row) for row in rows) + _REGION_GAP * (len(rows) - 1)
        return across / along if across_x else along / across

    one_row = aspect(len(sizes))
    if 1 / MAX_ASPECT <= one_row <= MAX_ASPECT:
        return len(sizes)
    return min(range(1, len(sizes) + 1), key=lambda columns: abs(math.log(aspect(columns) / TARGET_ASPECT)))
