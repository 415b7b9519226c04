"""Grid buckets for boxes and points, so a box is checked only against what lies near it.

A drawing of 500 states has about 1,000 labels, 600 boxes and frames and 150,000 sampled arrow
points; checking each label against all of them is quadratic. Here everything is bucketed by
square cells, and a query visits only the cells its box touches. A cell holds whatever touches
it (boxes by their closed extent), so two boxes that share any point share a cell: no overlap
is missed.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from typing import Generic, TypeVar

from statekit.render.geometry import Box

#: Cell side in points: about one state box, a few labels.
CELL = 48.0

Item = TypeVar("Item")


def cell_range(low: float, high: float, cell: float = CELL) -> range:
    """The cell indexes a closed interval touches (either end first: a box shrunk past its own
    size has x0 > x1, and still overlaps what covers the gap between them)."""
    if low > high:
        low, high = high, low
    return range(math.floor(low / cell), math.floor(high / cell) + 1)


def cells(box: Box, cell: float = CELL) -> Iterator[tuple[int, int]]:
    """Every cell the closed box touches."""
    rows = cell_range(box.y0, box.y1, cell)
    for cx in cell_range(box.x0, box.x1, cell):
        for cy in rows:
            yield cx, cy


class BoxGrid(Generic[Item]):
    """Boxes, each with an item (its index, say), bucketed by cell."""

    def __init__(self, cell: float = CELL) -> None:
        self.cell = cell
        self._cells: dict[tuple[int, int], list[tuple[Item, Box]]] = {}

    def add(self, item: Item, box: Box) -> None:
        for key in cells(box, self.cell):
            self._cells.setdefault(key, []).append((item, box))

    def near(self, box: Box) -> Iterator[tuple[Item, Box]]:
        """Every entry sharing a cell with `box` (an entry in several cells comes once per cell)."""
        found = self._cells
        for key in cells(box, self.cell):
            entries = found.get(key)
            if entries is not None:
                yield from entries


class PointGrid(Generic[Item]):
    """Points, each with an item (the arrow it lies on, say), bucketed by cell."""

    def __init__(self, cell: float = CELL) -> None:
        self.cell = cell
        self._cells: dict[tuple[int, int], list[tuple[float, float, Item]]] = {}

    def add(self, item: Item, points: Iterable[tuple[float, float]]) -> None:
        cell, found = self.cell, self._cells
        for x, y in points:
            key = (math.floor(x / cell), math.floor(y / cell))
            entries = found.get(key)
            if entries is None:
                found[key] = [(x, y, item)]
            else:
                entries.append((x, y, item))

    def inside(self, box: Box) -> Iterator[tuple[float, float, Item]]:
        """The points strictly inside `box` (Box.contains_point)."""
        x0, y0, x1, y1 = box.x0, box.y0, box.x1, box.y1
        found = self._cells
        for key in cells(box, self.cell):
            for entry in found.get(key, ()):
                if x0 < entry[0] < x1 and y0 < entry[1] < y1:
                    yield entry
