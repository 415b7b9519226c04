"""The geometry of a laid-out drawing, read from the layout engine's `-Tjson` output.

The engine places every state, frame, arrow and label; this module reads those positions back
(in points, y pointing down as on screen) so that tests can check a drawing for overlaps, the
wrapping of wide parallel states can measure regions, and the interactive viewer can draw the
very layout the PNG shows.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass, field
from typing import Any

#: Points sampled on each cubic Bezier segment of an arrow: at least this many, and at least
#: one per _SAMPLE_SPACING points of its control polygon.
_SAMPLES = 12
_SAMPLE_SPACING = 4.0


@dataclass(frozen=True, slots=True)
class Box:
    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    def overlaps(self, other: Box) -> bool:
        return self.x0 < other.x1 and other.x0 < self.x1 and self.y0 < other.y1 and other.y0 < self.y1

    def contains_point(self, x: float, y: float) -> bool:
        return self.x0 < x < self.x1 and self.y0 < y < self.y1

    def inside(self, other: Box) -> bool:
        return other.x0 <= self.x0 and self.x1 <= other.x1 and other.y0 <= self.y0 and self.y1 <= other.y1

    def shrunk(self, amount: float) -> Box:
        return Box(self.x0 + amount, self.y0 + amount, self.x1 - amount, self.y1 - amount)

    def rounded(self) -> list[float]:
        return [round(self.x0, 1), round(self.y0, 1), round(self.width, 1), round(self.height, 1)]


@dataclass(frozen=True, slots=True)
class TextLine:
    """One line of text as the engine drew it: left edge, baseline, width, font size."""

    text: str
    x: float
    baseline: float
    width: float
    size: float


@dataclass(frozen=True, slots=True)
class LaidNode:
    name: str
    box: Box
    visible: bool
    #: The text lines drawn in the node, top to bottom.
    lines: tuple[TextLine, ...] = ()
    #: The DOT `id` attribute ("" when none).
    node_id: str = ""


@dataclass(frozen=True, slots=True)
class LaidFrame:
    name: str
    box: Box
    title: Box | None
    #: DOT names of the nodes inside the frame (at any depth).
    members: tuple[str, ...] = ()
    lines: tuple[TextLine, ...] = ()


@dataclass(frozen=True, slots=True)
class LaidEdge:
    #: The DOT `id` attribute ("" for edges without one, such as initial-state arrows).
    edge_id: str
    tail: str
    head: str
    #: The drawn route (Bezier control points, clipped at frames), plus the arrowhead tip.
    points: tuple[tuple[float, float], ...]
    label: Box | None
    #: The label's lines joined by spaces ("" for an unlabelled edge).
    text: str
    lines: tuple[TextLine, ...] = ()
    dashed: bool = False


@dataclass
class Layout:
    width: float
    height: float
    nodes: dict[str, LaidNode] = field(default_factory=dict)
    frames: dict[str, LaidFrame] = field(default_factory=dict)
    edges: list[LaidEdge] = field(default_factory=list)
    #: The engine's JSON document the layout was read from.
    document: dict[str, Any] = field(default_factory=dict)


def parse_layout(data: bytes | str) -> Layout:
    """A Layout from the engine's JSON (`dot -Tjson`)."""
    document: dict[str, Any] = json.loads(data)
    _x0, _y0, x1, y1 = (float(part) for part in str(document["bb"]).split(","))
    layout = Layout(width=x1, height=y1, document=document)
    flip = y1  # Graphviz's y axis points up; the screen's points down

    def box(cx: float, cy: float, width: float, height: float) -> Box:
        return Box(cx - width / 2, flip - cy - height / 2, cx + width / 2, flip - cy + height / 2)

    names: dict[int, str] = {
        int(item["_gvid"]): str(item.get("name", "")) for item in document.get("objects", []) if "bb" not in item
    }
    for item in document.get("objects", []):
        name = str(item.get("name", ""))
        if "bb" in item:
            left, bottom, right, top = (float(part) for part in str(item["bb"]).split(","))
            members = tuple(names[index] for index in item.get("nodes", []) if index in names)
            title = _lines(item.get("_ldraw_"), flip)
            layout.frames[name] = LaidFrame(name, Box(left, flip - top, right, flip - bottom), _text_box(title), members, title)
            continue
        if "pos" not in item:
            continue
        cx, cy = (float(part) for part in str(item["pos"]).split(","))
        width = float(item.get("width", 0)) * 72
        height = float(item.get("height", 0)) * 72
        visible = "invis" not in str(item.get("style", ""))
        layout.nodes[name] = LaidNode(
            name, box(cx, cy, width, height), visible, _lines(item.get("_ldraw_"), flip), str(item.get("id", ""))
        )
    for item in document.get("edges", []):
        lines = _lines(item.get("_ldraw_"), flip) or _lines(item.get("_xldraw_"), flip)
        label = _text_box(lines)
        layout.edges.append(
            LaidEdge(
                str(item.get("id", "")),
                names.get(int(item["tail"]), ""),
                names.get(int(item["head"]), ""),
                _route(str(item.get("pos", "")), flip),
                label,
                " ".join(line.text.strip() for line in lines),
                lines,
                "dashed" in str(item.get("style", "")),
            )
        )
    return layout


def _lines(operations: Any, flip: float) -> tuple[TextLine, ...]:
    """The text lines an xdot operation list draws, in order, with where they were drawn."""
    if not isinstance(operations, list):
        return ()
    size = 14.0
    lines: list[TextLine] = []
    for operation in operations:
        if operation.get("op") == "F":
            size = float(operation["size"])
        elif operation.get("op") == "T":
            x, baseline = (float(value) for value in operation["pt"])
            width = float(operation["width"])
            left = {"l": x, "r": x - width}.get(str(operation.get("align")), x - width / 2)
            # xdot text has its backslashes doubled (in Graphviz's JSON writer too)
            text = str(operation["text"]).replace("\\\\", "\\")
            lines.append(TextLine(text, left, flip - baseline, width, size))
    return tuple(lines)


def _text_box(lines: tuple[TextLine, ...]) -> Box | None:
    """The box around drawn text lines (None: no text): from above the tallest letters of the
    first line to below the descenders of the last."""
    if not lines:
        return None
    tops = [line.baseline - line.size * 0.8 for line in lines]
    return Box(
        min(line.x for line in lines),
        min(tops),
        max(line.x + line.width for line in lines),
        max(top + line.size * 1.05 for top, line in zip(tops, lines, strict=True)),
    )


def _route(pos: str, flip: float) -> tuple[tuple[float, float], ...]:
    """Control points of an edge's `pos` (`e,x,y` / `s,x,y` arrow ends, then Bezier points)."""
    points: list[tuple[float, float]] = []
    tip: tuple[float, float] | None = None
    for part in pos.replace(";", " ").split():
        pieces = part.split(",")
        if pieces[0] in ("e", "s"):
            tip = (float(pieces[1]), flip - float(pieces[2]))
            continue
        points.append((float(pieces[0]), flip - float(pieces[1])))
    if tip is not None:
        points.append(tip)
    return tuple(points)


def sampled(points: tuple[tuple[float, float], ...]) -> list[tuple[float, float]]:
    """Points along a route: each cubic Bezier segment sampled, the arrowhead as a straight end."""
    if len(points) < 2:
        return list(points)
    curve = points[:-1] if (len(points) - 1) % 3 == 1 else points
    result: list[tuple[float, float]] = [curve[0]]
    append = result.append
    for start in range(0, len(curve) - 3, 3):
        (x0, y0), (x1, y1), (x2, y2), (x3, y3) = curve[start : start + 4]
        # dense enough that no label can sit between two samples: one every few points
        hull = math.dist((x0, y0), (x1, y1)) + math.dist((x1, y1), (x2, y2)) + math.dist((x2, y2), (x3, y3))
        for a, b, c, d in _bernstein(max(_SAMPLES, math.ceil(hull / _SAMPLE_SPACING))):
            append((a * x0 + b * x1 + c * x2 + d * x3, a * y0 + b * y1 + c * y2 + d * y3))
    if curve is not points:
        # the arrowhead: from the curve's end to the tip, sampled as a line
        (ax, ay), (bx, by) = result[-1], points[-1]
        result.extend((ax + (bx - ax) * k / 4, ay + (by - ay) * k / 4) for k in range(1, 5))
    return result


@functools.cache
def _bernstein(steps: int) -> tuple[tuple[float, float, float, float], ...]:
    """The cubic Bezier weights at t = 1/steps ... 1 (an arrow's segments share a few step
    counts; each weight is computed as `u**3`, `3*u*u*t`, `3*u*t*t`, `t**3`)."""
    weights = []
    for step in range(1, steps + 1):
        t = step / steps
        u = 1 - t
        weights.append((u**3, 3 * u * u * t, 3 * u * t * t, t**3))
    return tuple(weights)
