"""The collision check as it was first written, pair by pair (quadratic): the reference that
`statekit.render.collisions.label_collisions` (grid buckets) must agree with, finding for finding.
"""

from __future__ import annotations

from statekit.render.collisions import ARROW_ROOM, TEXT_SLACK
from statekit.render.geometry import Layout, sampled


def reference_collisions(layout: Layout) -> list[str]:
    problems: list[str] = []
    labelled = [edge for edge in layout.edges if edge.label is not None and edge.text]
    for index, edge in enumerate(labelled):
        assert edge.label is not None
        label = edge.label.shrunk(TEXT_SLACK)
        for node in layout.nodes.values():
            if node.visible and label.overlaps(node.box):
                problems.append(f"label {edge.text!r} overlaps state {node.name}")
        for frame in layout.frames.values():
            if frame.title is not None and label.overlaps(frame.title):
                problems.append(f"label {edge.text!r} overlaps the title of {frame.name}")
            if label.overlaps(frame.box) and not label.inside(frame.box):
                problems.append(f"label {edge.text!r} crosses the border of {frame.name}")
        for other in labelled[index + 1 :]:
            assert other.label is not None
            if label.overlaps(other.label.shrunk(TEXT_SLACK)):
                problems.append(f"label {edge.text!r} overlaps label {other.text!r}")
        clear = edge.label.shrunk(-ARROW_ROOM)
        for other in layout.edges:
            if any(clear.contains_point(x, y) for x, y in sampled(other.points)):
                what = "its own arrow" if other is edge else f"the arrow {other.tail}->{other.head}"
                problems.append(f"label {edge.text!r} lies on {what}")
    return problems
