"""Edge labels placed where they can be read: clear of states, frame titles and borders, other
labels and every arrow (their own included).

Graphviz places a label beside its edge's middle, but with clusters (`lhead`/`ltail`, external
labels) it often lands on another arrow, a frame's border or another label. Here each label
tries dot's own spot first, then spots beside points along its arrow (both sides, above and
below), and takes the first free one, else the least crowded one; `place_labels` reports the
labels it could not free, so the caller can lay the drawing out again with more room.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from statekit.render.geometry import Box, LaidEdge, Layout, sampled

#: Gaps between a label and the arrow point it is placed beside: close first, then a little off.
_GAPS = (2.0, 12.0, 24.0)
#: Where along an arrow candidate spots are tried, most preferred first.
_FRACTIONS = (0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8, 0.1, 0.9)
_CELL = 48.0
_SLACK = 1.0
#: Room kept between a label's text box and any arrow (more than the check in
#: collisions.label_collisions asks for, so a label never ends up touching a line).
ARROW_CLEARANCE = 1.6


@dataclass(frozen=True, slots=True)
class PlacedLabel:
    edge_id: str
    box: Box
    #: True when no free spot existed (the label still overlaps something).
    crowded: bool


class _Grid:
    """Boxes and points bucketed by cell, so a candidate is checked only against its neighbours."""

    def __init__(self) -> None:
        self.boxes: dict[tuple[int, int], list[tuple[int, Box]]] = defaultdict(list)
        self.points: dict[tuple[int, int], list[tuple[float, float]]] = defaultdict(list)
        self._next = 0

    @staticmethod
    def _cells(box: Box) -> Iterator[tuple[int, int]]:
        for cx in range(math.floor(box.x0 / _CELL), math.floor(box.x1 / _CELL) + 1):
            for cy in range(math.floor(box.y0 / _CELL), math.floor(box.y1 / _CELL) + 1):
                yield cx, cy

    def add_box(self, box: Box) -> None:
        self._next += 1
        for cell in self._cells(box):
            self.boxes[cell].append((self._next, box))

    def add_points(self, points: Iterable[tuple[float, float]]) -> None:
        for x, y in points:
            self.points[(math.floor(x / _CELL), math.floor(y / _CELL))].append((x, y))

    def hits(self, box: Box, clear: Box) -> int:
        """Boxes overlapping `box`, plus arrow points inside `clear` (the box with the room an
        arrow must keep from a label)."""
        seen: set[int] = set()
        count = 0
        for cell in self._cells(clear):
            for key, other in self.boxes.get(cell, ()):
                if key not in seen and box.overlaps(other):
                    seen.add(key)
                    count += 1
            count += sum(1 for x, y in self.points.get(cell, ()) if clear.contains_point(x, y))
        return count


class _Frames:
    """Frame borders: a label may lie inside or outside a frame, never across its border."""

    def __init__(self, frames: Iterable[Box]) -> None:
        self.grid: dict[tuple[int, int], list[Box]] = defaultdict(list)
        self.all = list(frames)
        for frame in self.all:
            # only the border matters: bucket the four sides
            for side in (
                Box(frame.x0, frame.y0, frame.x1, frame.y0),
                Box(frame.x0, frame.y1, frame.x1, frame.y1),
                Box(frame.x0, frame.y0, frame.x0, frame.y1),
                Box(frame.x1, frame.y0, frame.x1, frame.y1),
            ):
                for cell in _Grid._cells(side):
                    if frame not in self.grid[cell]:
                        self.grid[cell].append(frame)

    def crossings(self, box: Box) -> int:
        found: set[int] = set()
        for cell in _Grid._cells(box):
            for frame in self.grid.get(cell, ()):
                if box.overlaps(frame) and not box.inside(frame):
                    found.add(id(frame))
        return len(found)

    def innermost(self, x: float, y: float) -> Box | None:
        best: Box | None = None
        for frame in self.all:
            if frame.contains_point(x, y) and (best is None or frame.width * frame.height < best.width * best.height):
                best = frame
        return best


def _candidates(edge: LaidEdge, route: list[tuple[float, float]]) -> Iterator[tuple[Box, tuple[float, float]]]:
    """Spots for the label, each with the arrow point it belongs to; dot's own spot first."""
    assert edge.label is not None
    own = edge.label
    yield own, ((own.x0 + own.x1) / 2, (own.y0 + own.y1) / 2)
    width, height = own.width, own.height
    if len(route) < 2:
        return
    for gap in _GAPS:
        for fraction in _FRACTIONS:
            x, y = route[min(len(route) - 1, round(fraction * (len(route) - 1)))]
            half_w, half_h = width / 2, height / 2
            for box in (
                Box(x + gap, y - half_h, x + gap + width, y + half_h),
                Box(x - gap - width, y - half_h, x - gap, y + half_h),
                Box(x - half_w, y - gap - height, x + half_w, y - gap),
                Box(x - half_w, y + gap, x + half_w, y + gap + height),
                Box(x + gap, y - gap - height, x + gap + width, y - gap),
                Box(x - gap - width, y + gap, x - gap, y + gap + height),
                Box(x + gap, y + gap, x + gap + width, y + gap + height),
                Box(x - gap - width, y - gap - height, x - gap, y - gap),
            ):
                yield box, (x, y)


def place_labels(layout: Layout) -> list[PlacedLabel]:
    """A spot for every edge label of `layout`, in the order of its edges."""
    obstacles = _Grid()
    for node in layout.nodes.values():
        if node.visible:
            obstacles.add_box(node.box)
    for frame in layout.frames.values():
        if frame.title is not None:
            obstacles.add_box(frame.title)
    routes: dict[int, list[tuple[float, float]]] = {}
    for index, edge in enumerate(layout.edges):
        routes[index] = sampled(edge.points)
        obstacles.add_points(routes[index])
    frames = _Frames(frame.box for frame in layout.frames.values())
    drawing = Box(0, 0, layout.width, layout.height)
    placed: list[PlacedLabel] = []
    for index, edge in enumerate(layout.edges):
        if edge.label is None or not edge.text:
            continue
        best: tuple[float, Box] | None = None
        for box, anchor in _candidates(edge, routes[index]):
            check = box.shrunk(_SLACK)
            # a frame's border can still grow around the label (layout._grown_frames): cheaper
            hard = obstacles.hits(check, box.shrunk(-ARROW_CLEARANCE)) + 0.6 * frames.crossings(check)
            # stay in the frame the arrow is in, and inside the drawing
            home = frames.innermost(*anchor)
            soft = 0.0 if home is None or check.inside(home) else 0.2
            soft += 0.0 if box.inside(drawing) else 0.1
            cost = hard + soft
            if best is None or cost < best[0]:
                best = (cost, box)
            if cost == 0:
                break
        assert best is not None
        placed.append(PlacedLabel(edge.edge_id, best[1], crowded=best[0] >= 0.5))
        obstacles.add_box(best[1].shrunk(_SLACK))
    return placed
