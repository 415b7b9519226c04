"""A machine (or one part of it) as Graphviz DOT text, ready for `dot` or `graphviz-pure`.

Containers become clusters: a compound state is a rounded frame, a parallel state a frame whose
regions are dashed frames side by side, so regions stay visibly separate. Transitions to and from
containers use `lhead` / `ltail`, so arrows stop at the frame instead of at an inner state.
A view may stop at a depth: deeper containers are drawn collapsed, and transitions are lifted to
the nearest state still drawn. A state's self and targetless transitions become lines in its
label when they would otherwise pile up as loops, and three or more arrows between the same two
states become one. Every edge has an `id` (`e<index>`, `e3+5+8` merged, `i<state>` for initial
arrows), so the engine's layout maps back to the transitions; `statekit.render.layout` runs the
engine on this text and draws the result again with `placement` (positions fixed).
Output depends only on the model and the options (deterministic).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from statekit.model.core import MachineModel, StateNode
from statekit.render.edges import DrawnEdge, drawn_edges
from statekit.render.labels import (
    LINE_CHARS,
    NARROW_LINE_CHARS,
    clip,
    loop_line,
    state_details,
    state_title,
    transition_label,
    wrapped,
)

Direction = Literal["down", "right", "up", "left", "TB", "LR", "BT", "RL"]
DIRECTIONS: tuple[str, ...] = ("down", "right", "up", "left", "TB", "LR", "BT", "RL")
_RANKDIR = {"down": "TB", "right": "LR", "up": "BT", "left": "RL"}

#: One font for every label. graphviz-pure maps Arial to its bundled Arimo (metric-compatible),
#: and system Graphviz finds Arial or a metric twin through fontconfig.
FONT = "Arial"
INK = "#2d3748"
MUTED = "#718096"


@dataclass(frozen=True)
class DrawOptions:
    """What to draw: the direction of flow, and which part of the machine."""

    direction: str = "down"
    #: Draw this state's subtree (None: the whole machine).
    root_id: str | None = None
    #: Levels of descendants drawn below the root (None: all); deeper containers are collapsed.
    depth: int | None = None


#: A state with this many self or targetless transitions lists them under its name instead
#: of drawing a loop for each (loops pile up on one side and their labels collide).
LOOP_LIST_THRESHOLD = 2


@dataclass(frozen=True)
class Placement:
    """Positions from a first layout run (Graphviz coordinates, y up), for drawing it as laid
    out: `neato -n2` then draws these positions instead of computing a layout."""

    bounding_box: str
    #: DOT node name -> `pos`.
    nodes: dict[str, str]
    #: cluster name -> (`bb`, `lp` of its title).
    clusters: dict[str, tuple[str, str]]
    #: edge `id` -> (`pos` of the route, `lp` of its label or None).
    edges: dict[str, tuple[str, str | None]]


@dataclass(frozen=True)
class WrapRows:
    """Parallel states whose regions are drawn in rows (not one long row): parallel state id ->
    (regions per row, (last node of each region, first node of each region) DOT names)."""

    rows: dict[str, tuple[int, tuple[tuple[str, str], ...]]]


def rankdir(direction: str) -> str:
    """The Graphviz `rankdir` for a direction name (`down`, `right`, ... or `TB`, `LR`, ...)."""
    if direction in _RANKDIR:
        return _RANKDIR[direction]
    if direction in _RANKDIR.values():
        return direction
    raise ValueError(f"unknown direction {direction!r}; use one of {', '.join(DIRECTIONS)}")


def quote(text: str) -> str:
    """A DOT double-quoted string; backslashes are escaped so `\\N`-style escapes stay literal."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\\n") + '"'


class _View:
    """Which states are drawn, and how (frame, box, or collapsed box), for one DrawOptions."""

    def __init__(self, model: MachineModel, options: DrawOptions) -> None:
        self.model = model
        root_id = options.root_id if options.root_id is not None else model.root.id
        if root_id not in model.nodes:
            raise KeyError(root_id)
        self.root = model.nodes[root_id]
        self.depth = options.depth
        self.placement: Placement | None = None
        self.loops: dict[str, list[int]] = {}
        self.edge_list: tuple[DrawnEdge, ...] = ()
        self.narrow: frozenset[int] = frozenset()
        self.parent_of: dict[str, str] = {}
        self.names: dict[str, str] = {}
        self.containers: set[str] = set()
        self.collapsed: set[str] = set()
        self.shown = _Shown(self)
        for index, (node, level) in enumerate(self._walk(self.root, 0)):
            self.names[node.id] = f"s{index}"
            for child in node.children:
                self.parent_of[child.id] = node.id
            if node.children:
                if self.depth is not None and level >= self.depth:
                    self.collapsed.add(node.id)
                else:
                    self.containers.add(node.id)
        for node in model.root.walk():
            for child in node.children:
                self.parent_of.setdefault(child.id, node.id)

    def _walk(self, node: StateNode, level: int) -> Iterator[tuple[StateNode, int]]:
        yield node, level
        if node.children and (self.depth is None or level < self.depth):
            for child in node.children:
                yield from self._walk(child, level + 1)

    def inside(self, state_id: str, container_id: str) -> bool:
        current: str | None = state_id
        while current is not None:
            if current == container_id:
                return True
            current = self.parent_of.get(current)
        return False

    def anchor(self, state_id: str) -> str:
        """The DOT node an edge to `state_id` attaches to (a frame needs a node inside it)."""
        node = self.model.nodes[state_id]
        if state_id not in self.containers:
            return self.names[state_id]
        if node.type == "compound" and node.initial:
            return "i" + self.names[state_id]
        # A parallel frame gets an invisible node of its own, outside its regions: an edge
        # anchored inside a region would be routed (and labelled) through that region.
        return "a" + self.names[state_id]


class _Shown(dict[str, str | None]):
    """State id -> the drawn state that stands for it (itself or its nearest drawn ancestor;
    None outside the view). A view asks this for both ends of every transition of the machine,
    so each state is worked out once, from its parent's answer."""

    def __init__(self, view: _View) -> None:
        super().__init__()
        self.view = view

    def __missing__(self, state_id: str) -> str | None:
        # `visible` one step at a time: the parent's answer is remembered too
        parent = self.view.parent_of.get(state_id)
        drawn = state_id if state_id in self.view.names else None if parent is None else self[parent]
        self[state_id] = drawn
        return drawn


def view_names(model: MachineModel, options: DrawOptions) -> dict[str, str]:
    """State id -> DOT node name (`sN`) of every state `options` draws."""
    return dict(_View(model, options).names)


def machine_dot(
    model: MachineModel,
    options: DrawOptions | None = None,
    edges: tuple[DrawnEdge, ...] | None = None,
    *,
    placement: Placement | None = None,
    wrap: WrapRows | None = None,
    spacing: float = 1.0,
    narrow: frozenset[int] = frozenset(),
) -> str:
    """The DOT text for `options` (the whole machine by default).

    `edges` is `drawn_edges(model)` when the caller draws several parts of one machine.
    With `placement` the text carries the positions of an earlier layout (for `neato -n2`);
    `wrap` puts the regions of wide parallel states in rows; `spacing` scales the gaps;
    the labels of the edges in `narrow` (indexes into `edges`) are broken into short lines.
    Every transition's DOT edge has `id="e<index in edges>"`, so a layout maps back to it.
    """
    options = options or DrawOptions()
    view = _View(model, options)
    view.placement = placement
    all_edges = edges if edges is not None else drawn_edges(model)
    view.edge_list = all_edges
    view.narrow = narrow
    view.loops = _loop_lists(view, all_edges)
    positioned = ""
    if placement is not None:
        positioned = f", bb={quote(placement.bounding_box)}, splines=true"
    lines = [
        "digraph statechart {",
        f"  graph [compound=true, rankdir={rankdir(options.direction)}, fontname={quote(FONT)}, "
        f"fontsize=13, nodesep={0.35 * spacing:g}, ranksep={0.45 * spacing:g}, pad=0.15, "
        f'bgcolor="white"{positioned}];',
        f"  node [fontname={quote(FONT)}, fontsize=12, shape=box, style=\"rounded,filled\", "
        f'fillcolor="#ffffff", color={quote(INK)}, fontcolor={quote(INK)}, penwidth=1.2, '
        "margin=\"0.12,0.06\"];",
        f"  edge [fontname={quote(FONT)}, fontsize=10, color={quote(INK)}, "
        f"fontcolor={quote(INK)}, arrowsize=0.7];",
    ]
    lines.extend(_state(view, view.root, "  ", region=False))
    lines.extend(_edges(view, all_edges))
    if wrap is not None and placement is None:
        lines.extend(_wrap_edges(wrap))
    lines.append("}")
    return "\n".join(lines) + "\n"


def _loop_lists(view: _View, edges: tuple[DrawnEdge, ...]) -> dict[str, list[int]]:
    """Drawn state id -> indexes of its self and targetless transitions that are listed in the
    state (every one on a frame, where a loop would run through the frame's contents; two or
    more on a box)."""
    loops: dict[str, list[int]] = {}
    shown = view.shown
    for index, edge in enumerate(edges):
        source = shown[edge.source_id]
        # a transition to the state itself, or into it when its children are collapsed
        if source is not None and source == edge.source_id and shown[edge.target_id] == source:
            loops.setdefault(source, []).append(index)
    return {
        state_id: indexes
        for state_id, indexes in loops.items()
        if state_id in view.containers or len(indexes) >= LOOP_LIST_THRESHOLD
    }


def _wrap_edges(wrap: WrapRows) -> list[str]:
    """Invisible edges from each region's last node to the first node of the region one row
    down: the rank constraints stack rows of regions instead of one long row."""
    lines: list[str] = []
    for columns, ends in wrap.rows.values():
        for index in range(len(ends) - columns):
            lines.append(f"  {ends[index][0]} -> {ends[index + columns][1]} [style=invis, weight=0];")
    return lines


def _state(view: _View, node: StateNode, indent: str, *, region: bool) -> list[str]:
    name = view.names[node.id]
    if node.id not in view.containers:
        return [f"{indent}{name} [{_box_attributes(view, node)}{_pos(view, name)}];"]
    title = node.key if node.parent_id is not None or node is not view.model.root else view.model.id
    if node.type == "parallel":
        title += " (parallel)"
    style = "dashed" if region else ("rounded" if node.type == "compound" else "solid")
    fill = "#f7fafc" if node.type == "parallel" else "#ffffff"
    title_lines = [clip(title), *state_details(node), *_listed_loops(view, node.id)]
    positioned = ""
    if view.placement is not None and f"cluster_{name}" in view.placement.clusters:
        bb, lp = view.placement.clusters[f"cluster_{name}"]
        positioned = f" bb={quote(bb)}; lp={quote(lp)};"
    lines = [
        f"{indent}subgraph cluster_{name} {{",
        f"{indent}  label={quote_left(title_lines)}; labeljust=l; style=\"{style},filled\"; "
        f"fillcolor={quote(fill)}; color={quote(MUTED if region else INK)}; "
        f"fontcolor={quote(INK)};{positioned}",
    ]
    if not (node.type == "compound" and node.initial):
        lines.append(
            f'{indent}  a{name} [shape=point, style=invis, width=0.01, height=0.01, label=""'
            f"{_pos(view, 'a' + name)}];"
        )
    if node.type == "compound" and node.initial:
        initial = node.child(node.initial)
        lines.append(
            f"{indent}  i{name} [shape=point, width=0.11, style=filled, fillcolor={quote(INK)}, "
            f'label=""{_pos(view, "i" + name)}];'
        )
        if initial is not None:
            target = view.anchor(initial.id)
            edge_id = f"i{name}"
            head = f", lhead=cluster_{view.names[initial.id]}" if initial.id in view.containers else ""
            if view.placement is not None:
                head = _edge_pos(view, edge_id)
            lines.append(f"{indent}  i{name} -> {target} [id={edge_id}, arrowsize=0.6{head}];")
    for child in node.children:
        lines.extend(_state(view, child, indent + "  ", region=node.type == "parallel"))
    lines.append(f"{indent}}}")
    return lines


def _box_attributes(view: _View, node: StateNode) -> str:
    if node.type == "history":
        return f"label={quote(state_title(node))}, shape=circle, width=0.35, fixedsize=true, fontsize=10"
    lines = [state_title(node)]
    if node.id in view.collapsed:
        count = sum(1 for _ in node.walk()) - 1
        lines.append(f"[{count} substate{'s' if count != 1 else ''}]")
    lines.extend(state_details(node))
    lines.extend(_listed_loops(view, node.id))
    attributes = [f"label={quote(chr(10).join(lines))}"]
    if node.type == "final":
        attributes.append("peripheries=2")
    if node.id in view.collapsed:
        attributes.append('fillcolor="#edf2f7"')
        if node.type == "parallel":
            attributes.append('style="rounded,filled,dashed"')
    return ", ".join(attributes)


def quote_left(lines: list[str]) -> str:
    """A DOT string of left-justified lines (`\\l` ends each), as a frame's title block."""
    return '"' + "".join(quote(line)[1:-1] + "\\l" for line in lines) + '"'


def _listed_loops(view: _View, state_id: str) -> list[str]:
    lines = []
    for index in view.loops.get(state_id, []):
        edge = view.edge_list[index]
        invokes = view.model.nodes[edge.source_id].invoke
        target = None if edge.targetless else view.model.nodes[edge.target_id]
        lines.append(loop_line(edge.transition, invokes, target=target, source_id=edge.source_id))
    return lines


def _pos(view: _View, name: str) -> str:
    if view.placement is None or name not in view.placement.nodes:
        return ""
    return f", pos={quote(view.placement.nodes[name])}"


def _edge_pos(view: _View, edge_id: str) -> str:
    if view.placement is None or edge_id not in view.placement.edges:
        return ""
    pos, label = view.placement.edges[edge_id]
    return f", pos={quote(pos)}" + (f", lp={quote(label)}" if label is not None else "")


#: This many transitions between the same two drawn states become one arrow listing them all.
MERGE_THRESHOLD = 3


@dataclass
class _Arrow:
    """One DOT edge: a transition, or several between the same two drawn states."""

    indexes: list[int]
    tail: str
    head: str
    source: str | None
    target: str | None
    dashed: bool
    texts: list[str]

    @property
    def edge_id(self) -> str:
        return "e" + "+".join(str(index) for index in self.indexes)


def edge_indexes(edge_id: str) -> list[int]:
    """The indexes into the drawn edges of a DOT edge id (`e3`, or `e3+5+8` for a merged one)."""
    if not edge_id.startswith("e"):
        return []
    return [int(part) for part in edge_id[1:].split("+")]


def _edges(view: _View, edges: tuple[DrawnEdge, ...]) -> list[str]:
    lines: list[str] = []
    externals: dict[str, str] = {}
    listed = {index for indexes in view.loops.values() for index in indexes}
    arrows: list[_Arrow] = []
    shown = view.shown
    for index, edge in enumerate(edges):
        if index in listed:
            continue
        source = shown[edge.source_id]
        target = shown[edge.target_id]
        if source is None and target is None:
            continue
        if source is not None and source == target and source != edge.source_id:
            continue  # wholly inside a collapsed state: that state's own image shows it
        invokes = view.model.nodes[edge.source_id].invoke
        tail = _endpoint(view, source, edge.source_id, externals, lines)
        head = _endpoint(view, target, edge.target_id, externals, lines)
        text = transition_label(edge.transition, invokes)
        arrows.append(_Arrow([index], tail, head, source, target, edge.targetless, [text]))
    for arrow in _merged(arrows):
        lines.append(_arrow_line(view, arrow))
    return lines


def _merged(arrows: list[_Arrow]) -> list[_Arrow]:
    """Arrows between the same two states merged when there are MERGE_THRESHOLD or more."""
    groups: dict[tuple[str, str, bool], list[_Arrow]] = {}
    for arrow in arrows:
        groups.setdefault((arrow.tail, arrow.head, arrow.dashed), []).append(arrow)
    result: list[_Arrow] = []
    for group in groups.values():
        if len(group) < MERGE_THRESHOLD:
            result.extend(group)
            continue
        first = group[0]
        texts = list(dict.fromkeys(text for arrow in group for text in arrow.texts))
        indexes = [index for arrow in group for index in arrow.indexes]
        result.append(_Arrow(indexes, first.tail, first.head, first.source, first.target, first.dashed, texts))
    return result


def _arrow_line(view: _View, arrow: _Arrow) -> str:
    narrow = any(index in view.narrow for index in arrow.indexes)
    width = NARROW_LINE_CHARS if narrow else LINE_CHARS
    label = quote("\n".join(f" {line} " for text in arrow.texts for line in wrapped(text, width)))
    attributes = [f"id={quote(arrow.edge_id)}"]
    if arrow.dashed:
        attributes.append("style=dashed")
    source, target = arrow.source, arrow.target
    if view.placement is not None:
        # Laid out already: the route is clipped at the frames and the label placed.
        return f"  {arrow.tail} -> {arrow.head} [label={label}, {', '.join(attributes)}{_edge_pos(view, arrow.edge_id)}];"
    if source in view.containers and not (target is not None and view.inside(target, source)):
        attributes.append(f"ltail=cluster_{view.names[source]}")
        # The edge is clipped at the frame after layout; a mid-edge label would be placed
        # on the hidden part inside the frame, an external label stays by the visible part.
        # A label that found no spot that way gets a label node: dot then makes room for it.
        attributes.insert(0, f"{'label' if narrow else 'xlabel'}={label}")
    else:
        attributes.insert(0, f"label={label}")
    if target in view.containers and not (source is not None and view.inside(source, target)):
        attributes.append(f"lhead=cluster_{view.names[target]}")
    return f"  {arrow.tail} -> {arrow.head} [{', '.join(attributes)}];"


def _endpoint(
    view: _View, drawn: str | None, state_id: str, externals: dict[str, str], lines: list[str]
) -> str:
    """The DOT node for an edge end; a state outside the view becomes a dashed stub node."""
    if drawn is not None:
        return view.anchor(drawn)
    if state_id not in externals:
        externals[state_id] = f"x{len(externals)}"
        lines.append(
            f"  {externals[state_id]} [id={quote('stub:' + state_id)}, label={quote('#' + clip(state_id))}, "
            'style="dashed,rounded", '
            f"color={quote(MUTED)}, fontcolor={quote(MUTED)}, fontsize=10{_pos(view, externals[state_id])}];"
        )
    return externals[state_id]
