"""Edge labels placed where they can be read: clear of states, frame titles and borders, other
labels and every arrow (their own included).

Graphviz places a label beside its edge's middle, but with clusters (`lhead`/`ltail`, external
labels) it often lands on another arrow, a frame's border or another label. Here each label
tries dot's own spot first, then spots beside points along its arrow (both sides, above and
below), and takes the first free one; where none is free, dot's own spot nudged by up to three
points; else the least crowded spot. `place_labels` reports the labels it could not free, so
the caller can lay the drawing out again with more room.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from statekit.render.geometry import Box, LaidEdge, Layout, sampled
from statekit.render.spatial import CELL, cells

#: Gaps between a label and the arrow point it is placed beside: close first, then a little off.
_GAPS = (2.0, 12.0, 24.0)
#: Where along an arrow candidate spots are tried, most preferred first.
_FRACTIONS = (0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8, 0.1, 0.9)
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

    def add_box(self, box: Box) -> None:
        self._next += 1
        for cell in cells(box):
            self.boxes[cell].append((self._next, box))

    def add_points(self, points: Iterable[tuple[float, float]]) -> None:
        buckets = self.points
        for x, y in points:
            buckets[(math.floor(x / CELL), math.floor(y / CELL))].append((x, y))

    def hits(self, box: Box, clear: Box, enough: float = math.inf) -> int:
        """Boxes overlapping `box`, plus arrow points inside `clear` (the box with the room an
        arrow must keep from a label); counting stops once the count reaches `enough` (a
        candidate that crowded loses to the best one so far whatever else it hits)."""
        seen: set[int] = set()
        count = 0
        x0, y0, x1, y1 = clear.x0, clear.y0, clear.x1, clear.y1
        boxes, points = self.boxes, self.points
        for cell in cells(clear):
            for key, other in boxes.get(cell, ()):
                if key not in seen and box.overlaps(other):
                    seen.add(key)
                    count += 1
            for x, y in points.get(cell, ()):
                if x0 < x < x1 and y0 < y < y1:
                    count += 1
            if count >= enough:
                break
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
                for cell in cells(side):
                    if frame not in self.grid[cell]:
                        self.grid[cell].append(frame)

    def crossings(self, box: Box) -> int:
        found: set[int] = set()
        for cell in cells(box):
            for frame in self.grid.get(cell, ()):
                if box.overlaps(frame) and not box.inside(frame):
                    found.add(id(frame))
        return len(found)

    def around(self, points: list[tuple[float, float]]) -> list[Box]:
        """The frames (in order) that may hold one of `points`: those overlapping their extent."""
        xs, ys = [x for x, _ in points], [y for _, y in points]
        x0, y0, x1, y1 = min(xs), min(ys), max(xs), max(ys)
        return [frame for frame in self.all if frame.x0 < x1 and x0 < frame.x1 and frame.y0 < y1 and y0 < frame.y1]

    @staticmethod
    def innermost(x: float, y: float, frames: list[Box]) -> Box | None:
        """The smallest of `frames` holding the point (the first of equals)."""
        best: Box | None = None
        for frame in frames:
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
        placed.append(_place(edge, routes[index], obstacles, frames, drawing))
        obstacles.add_box(placed[-1].box.shrunk(_SLACK))
    return placed


def _place(edge: LaidEdge, route: list[tuple[float, float]], obstacles: _Grid, frames: _Frames, drawing: Box) -> PlacedLabel:
    """The first free spot for the edge's label, else the least crowded one.

    A spot's cost is what it hits (boxes and arrow points; frame borders count 0.6) plus small
    penalties for leaving the arrow's frame or the drawing. Counting stops as soon as a spot
    is no better than the best so far (it could not be chosen), which keeps the answer the
    same as costing every spot in full. Where no spot beside the arrow is free, dot's own spot
    is tried again nudged by a point or three (`_nudges`) before the label counts as crowded."""
    assert edge.label is not None
    own = edge.label
    nearby = frames.around([*route, ((own.x0 + own.x1) / 2, (own.y0 + own.y1) / 2)])
    homes: dict[tuple[float, float], Box | None] = {}
    best_cost, best_box = math.inf, own

    def search(spots: Iterable[tuple[Box, tuple[float, float]]]) -> None:
        nonlocal best_cost, best_box
        for box, anchor in spots:
            check = box.shrunk(_SLACK)
            hits = obstacles.hits(check, box.shrunk(-ARROW_CLEARANCE), best_cost)
            if hits >= best_cost:
                continue
            # a frame's border can still grow around the label (layout._grown_frames): cheaper
            hard = hits + 0.6 * frames.crossings(check)
            if hard >= best_cost:
                continue
            # stay in the frame the arrow is in, and inside the drawing
            if anchor not in homes:
                homes[anchor] = frames.innermost(*anchor, nearby)
            home = homes[anchor]
            soft = 0.0 if home is None or check.inside(home) else 0.2
            soft += 0.0 if box.inside(drawing) else 0.1
            cost = hard + soft
            if cost < best_cost:
                best_cost, best_box = cost, box
            if cost == 0:
                return

    search(_candidates(edge, route))
    if best_cost >= _CROWDED:
        search(_nudges(own))
    return PlacedLabel(edge.edge_id, best_box, crowded=best_cost >= _CROWDED)


#: A label whose best spot costs this much still overlaps something (a frame border counts 0.6).
_CROWDED = 0.5
#: How far dot's own spot is nudged when nothing beside the arrow is free: dot often sets a
#: label touching its own arrow (within ARROW_CLEARANCE) where the arrows around leave no room
#: elsewhere; a point or two off its own spot is the least change that can free it.
_NUDGE_STEP = 0.5
_NUDGE_STEPS = 6


def _nudges(own: Box) -> Iterator[tuple[Box, tuple[float, float]]]:
    """dot's own spot moved by up to _NUDGE_STEPS half points each way, nearest first."""
    centre = ((own.x0 + own.x1) / 2, (own.y0 + own.y1) / 2)
    offsets = [
        (dx * _NUDGE_STEP, dy * _NUDGE_STEP)
        for dx in range(-_NUDGE_STEPS, _NUDGE_STEPS + 1)
        for dy in range(-_NUDGE_STEPS, _NUDGE_STEPS + 1)
        if dx or dy
    ]
    offsets.sort(key=lambda offset: (offset[0] ** 2 + offset[1] ** 2, offset))
    for dx, dy in offsets:
        yield Box(own.x0 + dx, own.y0 + dy, own.x1 + dx, own.y1 + dy), centre
