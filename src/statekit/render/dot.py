"""A machine (or one part of it) as Graphviz DOT text, ready for `dot` or `graphviz-pure`.

Containers become clusters: a compound state is a rounded frame, a parallel state a frame whose
regions are dashed frames side by side, so regions stay visibly separate. Transitions to and from
containers use `lhead` / `ltail`, so arrows stop at the frame instead of at an inner state.
A view may stop at a depth: deeper containers are drawn collapsed, and transitions are lifted to
the nearest state still drawn. Output depends only on the model and the options (deterministic).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from statekit.model.core import MachineModel, StateNode
from statekit.render.edges import DrawnEdge, drawn_edges
from statekit.render.labels import clip, state_details, state_title, transition_label

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
        self.parent_of: dict[str, str] = {}
        self.names: dict[str, str] = {}
        self.containers: set[str] = set()
        self.collapsed: set[str] = set()
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

    def visible(self, state_id: str) -> str | None:
        """The drawn state that stands for `state_id` (itself or its nearest drawn ancestor)."""
        current: str | None = state_id
        while current is not None and current not in self.names:
            current = self.parent_of.get(current)
        return current

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


def machine_dot(
    model: MachineModel,
    options: DrawOptions | None = None,
    edges: tuple[DrawnEdge, ...] | None = None,
) -> str:
    """The DOT text for `options` (the whole machine by default).

    `edges` is `drawn_edges(model)` when the caller draws several parts of one machine.
    """
    options = options or DrawOptions()
    view = _View(model, options)
    lines = [
        "digraph statechart {",
        f"  graph [compound=true, rankdir={rankdir(options.direction)}, fontname={quote(FONT)}, "
        'fontsize=13, nodesep=0.35, ranksep=0.45, pad=0.15, bgcolor="white"];',
        f"  node [fontname={quote(FONT)}, fontsize=12, shape=box, style=\"rounded,filled\", "
        f'fillcolor="#ffffff", color={quote(INK)}, fontcolor={quote(INK)}, penwidth=1.2, '
        "margin=\"0.12,0.06\"];",
        f"  edge [fontname={quote(FONT)}, fontsize=10, color={quote(INK)}, "
        f"fontcolor={quote(INK)}, arrowsize=0.7];",
    ]
    lines.extend(_state(view, view.root, "  ", region=False))
    lines.extend(_edges(view, edges if edges is not None else drawn_edges(model)))
    lines.append("}")
    return "\n".join(lines) + "\n"


def _state(view: _View, node: StateNode, indent: str, *, region: bool) -> list[str]:
    name = view.names[node.id]
    if node.id not in view.containers:
        return [f"{indent}{name} [{_box_attributes(view, node)}];"]
    title = node.key if node.parent_id is not None or node is not view.model.root else view.model.id
    if node.type == "parallel":
        title += " (parallel)"
    style = "dashed" if region else ("rounded" if node.type == "compound" else "solid")
    fill = "#f7fafc" if node.type == "parallel" else "#ffffff"
    lines = [
        f"{indent}subgraph cluster_{name} {{",
        f"{indent}  label={quote(clip(title))}; labeljust=l; style=\"{style},filled\"; "
        f"fillcolor={quote(fill)}; color={quote(MUTED if region else INK)}; "
        f"fontcolor={quote(INK)};",
    ]
    if not (node.type == "compound" and node.initial):
        lines.append(f'{indent}  a{name} [shape=point, style=invis, width=0.01, height=0.01, label=""];')
    if node.type == "compound" and node.initial:
        initial = node.child(node.initial)
        lines.append(
            f"{indent}  i{name} [shape=point, width=0.11, style=filled, fillcolor={quote(INK)}, "
            'label=""];'
        )
        if initial is not None:
            target = view.anchor(initial.id)
            head = f", lhead=cluster_{view.names[initial.id]}" if initial.id in view.containers else ""
            lines.append(f"{indent}  i{name} -> {target} [arrowsize=0.6{head}];")
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
    attributes = [f"label={quote(chr(10).join(lines))}"]
    if node.type == "final":
        attributes.append("peripheries=2")
    if node.id in view.collapsed:
        attributes.append('fillcolor="#edf2f7"')
        if node.type == "parallel":
            attributes.append('style="rounded,filled,dashed"')
    return ", ".join(attributes)


def _edges(view: _View, edges: tuple[DrawnEdge, ...]) -> list[str]:
    lines: list[str] = []
    externals: dict[str, str] = {}
    for edge in edges:
        transition = edge.transition
        source = view.visible(edge.source_id)
        target = view.visible(edge.target_id)
        if source is None and target is None:
            continue
        if source is not None and source == target and source != edge.source_id:
            continue  # wholly inside a collapsed state: that state's own image shows it
        invokes = view.model.nodes[edge.source_id].invoke
        label = quote(" " + transition_label(transition, invokes) + " ")
        attributes = []
        if edge.targetless:
            attributes.append("style=dashed")
        tail = _endpoint(view, source, edge.source_id, externals, lines)
        head = _endpoint(view, target, edge.target_id, externals, lines)
        if source in view.containers and not (target is not None and view.inside(target, source)):
            attributes.append(f"ltail=cluster_{view.names[source]}")
            # The edge is clipped at the frame after layout; a mid-edge label would be placed
            # on the hidden part inside the frame, an external label stays by the visible part.
            attributes.insert(0, f"xlabel={label}")
        else:
            attributes.insert(0, f"label={label}")
        if target in view.containers and not (source is not None and view.inside(source, target)):
            attributes.append(f"lhead=cluster_{view.names[target]}")
        lines.append(f"  {tail} -> {head} [{', '.join(attributes)}];")
    return lines


def _endpoint(
    view: _View, drawn: str | None, state_id: str, externals: dict[str, str], lines: list[str]
) -> str:
    """The DOT node for an edge end; a state outside the view becomes a dashed stub node."""
    if drawn is not None:
        return view.anchor(drawn)
    if state_id not in externals:
        externals[state_id] = f"x{len(externals)}"
        lines.append(
            f"  {externals[state_id]} [label={quote('#' + clip(state_id))}, style=\"dashed,rounded\", "
            f"color={quote(MUTED)}, fontcolor={quote(MUTED)}, fontsize=10];"
        )
    return externals[state_id]
