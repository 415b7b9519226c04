"""What the structure-only diagram formats share: Mermaid (`mermaid.py`) and D2 (`d2.py`).

Writers: the edges of a machine with their labels, what a diagram cannot hold (one warning per
loss), ids that are safe in a diagram. Readers: the tree (`RNode`) and edges (`REdge`) a diagram
reader builds, turned into a machine with every default it fills in reported as `assumed_*`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from statekit.budget import check_budget
from statekit.errors import MachineDefinitionError, ToolError
from statekit.formats import FormatWarning, warning
from statekit.model import MachineModel, StateNode, Transition, parse_machine
from statekit.model.core import Guard
from statekit.model.parse import DEFAULT_MACHINE_ID
from statekit.model.resolve import Resolver

#: Largest text the structure readers accept, and deepest nesting.
MAX_TEXT = 2_000_000
MAX_DEPTH = 64
#: Deepest state tree a structure reader builds (states may be placed inside re-opened composites).
MAX_TREE_DEPTH = 200

# --- shared by the Mermaid and D2 writers ------------------------------------------------------


def config_path(node: StateNode) -> str:
    """Where `node` is in the machine config (`states.a.states.b`), '' for the root."""
    return ".".join(f"states.{key}" for key in node.path)


def node_losses(model: MachineModel, format_name: str) -> list[FormatWarning]:
    """One warning per thing of the machine's states that a structure-only format drops."""
    lost: list[FormatWarning] = []

    def lose(code: str, what: str, path: str) -> None:
        lost.append(warning(code, f"{format_name} cannot express {what}; dropped", path))

    if model.has_context:
        lose("context_lost", "the context", "context")
    if model.extra:
        lose("extra_lost", f"the machine keys {sorted(model.extra)}", "")
    if model.root.explicit_id is not None:
        lose("id_lost", f"the machine id {model.root.explicit_id!r}", "id")
    for node in model.root.walk():
        path = config_path(node)
        if node.explicit_id is not None and node is not model.root:
            lose("id_lost", f"the state id {node.explicit_id!r}", f"{path}.id")
        for name in ("entry", "exit"):
            if getattr(node, name):
                lose("actions_lost", f"{name} actions", f"{path}.{name}".lstrip("."))
        if node.invoke:
            lose("invoke_lost", "invoked actors", f"{path}.invoke".lstrip("."))
        if node.tags:
            lose("tags_lost", "tags", f"{path}.tags".lstrip("."))
        if node.meta is not None:
            lose("meta_lost", "meta", f"{path}.meta".lstrip("."))
        if node.has_output:
            lose("output_lost", "the output of a final state", f"{path}.output".lstrip("."))
        if node.extra:
            lose("extra_lost", f"the keys {sorted(node.extra)}", path)
        if node.type == "history" and node.target:
            lose("history_target_lost", "a history state's default target", f"{path}.target".lstrip("."))
    return lost


@dataclass(frozen=True)
class Edge:
    """A transition as a diagram edge: source and target nodes and the label text."""

    source: StateNode
    target: StateNode
    label: str
    transition: Transition


_LABEL_SPECIALS = re.compile(r"[\[\]/\n\r;#%\"{}:\\]")


def _guard_text(guard: Guard) -> str:
    """A guard as a label can say it: its name, or a built-in as an expression of its operands
    (`!isAnswerCorrect`, `a && b`, `in(#id)`), never a built-in's bare name."""
    if guard.type == "xstate.not" and guard.guards:
        inner = _guard_text(guard.guards[0])
        return f"!{inner}" if guard.guards[0].type not in ("xstate.and", "xstate.or") else f"!({inner})"
    if guard.type in ("xstate.and", "xstate.or"):
        joiner = " && " if guard.type == "xstate.and" else " || "
        return joiner.join(f"({_guard_text(g)})" if g.type in ("xstate.and", "xstate.or") else _guard_text(g)
                           for g in guard.guards) or guard.type.removeprefix("xstate.")
    if guard.type == "xstate.stateIn":
        return f"in({guard.state if isinstance(guard.state, str) else json.dumps(guard.state)})"
    return guard.type.removeprefix("xstate.") if guard.is_builtin else guard.type


def transition_label(transition: Transition, path: str, warnings: list[FormatWarning], format_name: str) -> str:
    """`EVENT [guard] / a, b`, with a warning for everything the label cannot carry."""
    def lose(code: str, what: str) -> None:
        warnings.append(warning(code, f"{format_name} cannot express {what}", path))

    event = "" if transition.kind == "always" else transition.event
    if transition.kind not in ("on", "always"):
        lose("event_kind_as_name", f"{transition.kind} transitions; written as the event {event!r}")
    if _LABEL_SPECIALS.search(event) or event != event.strip():
        cleaned = _LABEL_SPECIALS.sub("_", event).strip() or "_"
        lose("event_renamed", f"the event {event!r} in a label; written as {cleaned!r}")
        event = cleaned
    label = event
    guard = transition.guard
    if guard is not None:
        name = _guard_text(guard)
        if guard.code is not None or guard.is_builtin or guard.has_params:
            lose("guard_lost", f"the guard {guard.type!r} beyond its name (code, params or operands)")
        if _LABEL_SPECIALS.search(name):
            name = _LABEL_SPECIALS.sub("_", name)
            lose("guard_renamed", f"the guard name {guard.type!r}; written as {name!r}")
        label = f"{label} [{name}]".strip()
    if transition.actions:
        # A built-in's bare name would read back as that built-in without its fields: its short
        # name (`assign`, `raise`) reads back as a named action, as a label can only say.
        names = [_LABEL_SPECIALS.sub("_", action.type.removeprefix("xstate.") if action.is_builtin else action.type)
                 .replace(",", "_") for action in transition.actions]
        lose("actions_as_text", "transition actions; only their names are written in the label")
        label = f"{label} / {', '.join(names)}"
    if transition.reenter_given:
        lose("reenter_lost", "`reenter`")
    if transition.description is not None:
        lose("description_lost", "a transition description")
    if transition.meta is not None:
        lose("meta_lost", "transition meta")
    if transition.extra:
        lose("extra_lost", f"the transition keys {sorted(transition.extra)}")
    return label


def edges_of(model: MachineModel, warnings: list[FormatWarning], format_name: str) -> list[Edge]:
    """Every transition as edges (one per target), warnings for those a diagram cannot draw."""
    resolver = Resolver(model)
    edges: list[Edge] = []
    for node in model.root.walk():
        for transition in node.transitions:
            path = f"{config_path(node)}:{transition.id}"
            if node is model.root:
                warnings.append(warning("root_transition_lost", f"{format_name} cannot draw a transition of the machine "
                                        "itself (it is not a state in the diagram); dropped", path))
                continue
            if not transition.targets:
                warnings.append(warning("targetless_lost", f"{format_name} cannot draw a targetless transition; dropped", path))
                continue
            label = transition_label(transition, path, warnings, format_name)
            targets: list[StateNode] = []
            for target in transition.targets:
                try:
                    targets.append(resolver.resolve_target(node, target))
                except MachineDefinitionError:
                    warnings.append(warning("unresolved_target", f"the target {target!r} does not resolve; dropped", path))
            if len(targets) > 1:
                warnings.append(warning("multiple_targets", f"{format_name} has no multi-target transition; written as "
                                        f"{len(targets)} edges with the same label", path))
            for target_node in targets:
                if target_node is model.root:
                    warnings.append(warning("root_target_lost", f"{format_name} cannot draw a transition to the machine "
                                            "itself; dropped", path))
                    continue
                edges.append(Edge(node, target_node, label, transition))
    return edges


def common_scope(edge: Edge) -> tuple[str, ...]:
    """The path of the deepest state strictly containing both ends of `edge` (where to draw it)."""
    source, target = edge.source.path[:-1], edge.target.path[:-1]
    common: list[str] = []
    for left, right in zip(source, target, strict=False):
        if left != right:
            break
        common.append(left)
    return tuple(common)


def safe_ids(model: MachineModel, pattern: str, reserved: frozenset[str], *, case_insensitive: bool,
             per_parent: bool) -> dict[str, str]:
    """A diagram id for every state (by model path) made of `pattern` characters."""
    ids: dict[str, str] = {}
    used: dict[str, set[str]] = {}
    for node in model.root.walk():
        if node is model.root:
            continue
        scope = ".".join(node.path[:-1]) if per_parent else ""
        taken = used.setdefault(scope, set())
        base = re.sub(pattern, "_", node.key) or "_"
        if base.lower() in reserved:
            base += "_"
        candidate, number = base, 2
        while (candidate.lower() if case_insensitive else candidate) in taken:
            candidate, number = f"{base}_{number}", number + 1
        taken.add(candidate.lower() if case_insensitive else candidate)
        ids[".".join(node.path)] = candidate
    return ids


# --- shared by the Mermaid and D2 readers ------------------------------------------------------


@dataclass(eq=False)
class RNode:
    """A state as a structure reader sees it, before it becomes a config."""

    key: str
    where: str
    parent: RNode | None = None
    kind: str = "state"  # state | parallel | final | history | deep_history | choice | fork | join
    children: list[RNode] = field(default_factory=list)
    initial: RNode | None = None
    description: str | None = None

    def path(self) -> list[str]:
        keys: list[str] = []
        node: RNode | None = self
        while node is not None and node.parent is not None:
            keys.append(node.key)
            node = node.parent
        return keys[::-1]


@dataclass(eq=False)
class REdge:
    """A transition as a structure reader sees it."""

    source: RNode
    targets: list[RNode]
    label: str
    where: str


_LABEL = re.compile(r"^(?P<event>[^\[/]*?)\s*(?:\[(?P<guard>[^\]]*)\])?\s*(?:/\s*(?P<actions>.*))?$", re.S)


def parse_label(label: str) -> tuple[str, str | None, list[str]]:
    """`EVENT [guard] / a, b` -> (event, guard name or None, action names)."""
    match = _LABEL.match(label.strip())
    if match is None:  # a `[` without `]`: the whole label is the event
        return label.strip(), None, []
    guard = (match.group("guard") or "").strip() or None
    actions = [item.strip() for item in (match.group("actions") or "").split(",") if item.strip()]
    return match.group("event").strip(), guard, actions


def _escape_key(key: str) -> str:
    return key.replace("\\", "\\\\").replace(".", "\\.")


def dedupe_keys(parent: RNode, warnings: list[FormatWarning]) -> None:
    """Make the keys of `parent`'s children distinct (a suffix, with a warning)."""
    seen: set[str] = set()
    for child in parent.children:
        if child.key in seen:
            base, number = child.key, 2
            while f"{base}_{number}" in seen:
                number += 1
            child.key = f"{base}_{number}"
            warnings.append(warning("assumed_key", f"two sibling states are called {base!r}; this one is "
                                    f"{child.key!r}", child.where))
        seen.add(child.key)


def build_model(root: RNode, edges: list[REdge], warnings: list[FormatWarning], format_name: str) -> MachineModel:
    """The machine of a structure reader's tree and edges, with every default reported."""
    stack = [(root, 0)]
    while stack:  # iterative: the tree may be deeper than Python's recursion limit
        check_budget()
        node, depth = stack.pop()
        if depth > MAX_TREE_DEPTH:
            raise ToolError("invalid_input", f"the {format_name} states nest deeper than {MAX_TREE_DEPTH} levels")
        stack.extend((child, depth + 1) for child in node.children)
    config = _state_config(root, warnings)
    by_node: dict[int, dict[str, Any]] = {}

    def index(node: RNode, state: dict[str, Any]) -> None:
        by_node[id(node)] = state
        for child in node.children:
            index(child, state["states"][child.key])

    index(root, config)
    for edge in edges:
        source = edge.source
        if source.kind in ("final",):
            warnings.append(warning("transition_from_final", "a final state cannot have transitions; dropped", edge.where))
            continue
        event, guard, actions = parse_label(edge.label)
        item: dict[str, Any] = {"target": [_target(source, target) for target in edge.targets]}
        if len(item["target"]) == 1:
            item["target"] = item["target"][0]
        if source.kind == "choice":
            guard = None if edge.label.strip().lower() in ("", "else", "[else]") else (guard or edge.label.strip())
            event = ""
            warnings.append(warning("assumed_choice", "a choice's transition is eventless, its label the guard name",
                                    edge.where))
        elif source.kind == "fork":
            event = ""
            warnings.append(warning("assumed_fork", "a fork is one eventless transition to all its targets", edge.where))
        elif source.kind == "join":
            warnings.append(warning("assumed_join", "a join is an ordinary state", edge.where))
        if guard:
            item["guard"] = guard
        if actions:
            item["actions"] = actions
        state = by_node[id(source)]
        if not event:
            if source.kind not in ("choice", "fork"):
                warnings.append(warning("assumed_always", "an unlabelled transition is eventless (`always`)", edge.where))
            state.setdefault("always", []).append(item)
        else:
            state.setdefault("on", {}).setdefault(event, []).append(item)
    try:
        return parse_machine(config)
    except (MachineDefinitionError, RecursionError) as error:
        raise ToolError("invalid_input", f"the {format_name} diagram does not make a valid machine: {error}") from None


def _target(source: RNode, target: RNode) -> str:
    parent = source.parent
    ancestors: list[RNode] = []
    node: RNode | None = target.parent
    while node is not None:
        ancestors.append(node)
        node = node.parent
    if parent is not None and parent in ancestors:
        below = target.path()[len(parent.path()):]
        return ".".join(_escape_key(key) for key in below)
    return "#" + ".".join([DEFAULT_MACHINE_ID, *(_escape_key(key) for key in target.path())])


def _state_config(node: RNode, warnings: list[FormatWarning]) -> dict[str, Any]:
    config: dict[str, Any] = {}
    if node.kind == "parallel":
        config["type"] = "parallel"
    elif node.kind == "final":
        config["type"] = "final"
    elif node.kind in ("history", "deep_history"):
        config["type"] = "history"
        if node.kind == "deep_history":
            config["history"] = "deep"
    if node.description is not None:
        config["description"] = node.description
    if node.children and node.kind not in ("parallel", "final", "history", "deep_history"):
        initial = node.initial if node.initial in node.children else None
        if initial is None:
            initial = node.children[0]
            warnings.append(warning("assumed_initial", f"no initial state given; the first child {initial.key!r} is "
                                    "the initial state", node.where))
        config["initial"] = initial.key
    if node.children:
        config["states"] = {child.key: _state_config(child, warnings) for child in node.children}
    return config
