"""The readability check: where an edge label overlaps something, on the engine's own geometry.

Every label is checked against every visible state, every frame's title and border, every other
label and every arrow. Done pair by pair that is quadratic (a 500-state drawing has 1,000 labels
and 1,000 arrows, each sampled into a hundred points); here states, titles, frame borders,
labels and arrow points are put in grid buckets once (`spatial`), each label looks only at the
cells it touches, and the findings are reported in the order the pair-by-pair check gave them
(tests/render/test_collisions.py holds the two to the same answer on random drawings).
"""

from __future__ import annotations

from statekit.render.geometry import Box, LaidEdge, Layout, sampled
from statekit.render.spatial import BoxGrid, PointGrid

#: Text boxes are shrunk by this much on each side before overlap checks: glyph boxes include
#: line spacing, and a label whose padding touches a line is still readable.
TEXT_SLACK = 1.0
#: An arrow must pass at least this far from a label's text box (descenders reach its edge).
ARROW_ROOM = 1.0


def _sides(frame: Box) -> tuple[Box, ...]:
    """A frame's four borders as boxes of no width: a box crossing the border touches one."""
    return (
        Box(frame.x0, frame.y0, frame.x1, frame.y0),
        Box(frame.x0, frame.y1, frame.x1, frame.y1),
        Box(frame.x0, frame.y0, frame.x0, frame.y1),
        Box(frame.x1, frame.y0, frame.x1, frame.y1),
    )


def label_collisions(layout: Layout) -> list[str]:
    """Every place where an edge label overlaps a state, a frame's title or border, another
    label, or an arrow; an empty list for a drawing whose labels can all be read.

    Per label, in edge order: the states it overlaps (in the layout's order), then per frame its
    title and its border, then the later labels it overlaps, then the arrows it lies on."""
    labelled = [edge for edge in layout.edges if edge.label is not None and edge.text]
    node_names = [node.name for node in layout.nodes.values()]
    nodes: BoxGrid[int] = BoxGrid()
    for order, node in enumerate(layout.nodes.values()):
        if node.visible:
            nodes.add(order, node.box)
    frames = list(layout.frames.values())
    titles: BoxGrid[int] = BoxGrid()
    borders: BoxGrid[int] = BoxGrid()
    for order, frame in enumerate(frames):
        if frame.title is not None:
            titles.add(order, frame.title)
        for side in _sides(frame.box):
            borders.add(order, side)
    labels: BoxGrid[int] = BoxGrid()
    shrunk: list[Box] = []
    for order, edge in enumerate(labelled):
        assert edge.label is not None
        shrunk.append(edge.label.shrunk(TEXT_SLACK))
        labels.add(order, shrunk[-1])
    arrows: PointGrid[int] = PointGrid()
    for order, edge in enumerate(layout.edges):
        arrows.add(order, sampled(edge.points))

    problems: list[str] = []
    for order, edge in enumerate(labelled):
        assert edge.label is not None
        label = shrunk[order]
        on_nodes = sorted({index for index, box in nodes.near(label) if label.overlaps(box)})
        problems.extend(f"label {edge.text!r} overlaps state {node_names[index]}" for index in on_nodes)
        on_titles = {index for index, box in titles.near(label) if label.overlaps(box)}
        across = {index for index, _side in borders.near(label) if _crosses(label, frames[index].box)}
        for index in sorted(on_titles | across):
            if index in on_titles:
                problems.append(f"label {edge.text!r} overlaps the title of {frames[index].name}")
            if index in across:
                problems.append(f"label {edge.text!r} crosses the border of {frames[index].name}")
        on_labels = sorted({index for index, box in labels.near(label) if index > order and label.overlaps(box)})
        problems.extend(f"label {edge.text!r} overlaps label {labelled[index].text!r}" for index in on_labels)
        clear = edge.label.shrunk(-ARROW_ROOM)
        for index in sorted({index for _x, _y, index in arrows.inside(clear)}):
            problems.append(f"label {edge.text!r} lies on {_arrow_name(layout.edges[index], edge)}")
    return problems


def _crosses(label: Box, frame: Box) -> bool:
    return label.overlaps(frame) and not label.inside(frame)


def _arrow_name(arrow: LaidEdge, labelled: LaidEdge) -> str:
    return "its own arrow" if arrow is labelled else f"the arrow {arrow.tail}->{arrow.head}"
