"""`diff_machines`: a structural, semantic comparison of two machines.

The result has three views of one comparison:

- `diff`: the graph diff (nodes = states, edges = transitions) in the shape of
  `@statelyai/graph`'s `getDiff` (`added`, `removed`, `updated: {id, old, new}`), counting
  only structural and behavioural changes;
- `semanticChanges`: every change, including non-structural ones (context, schemas, meta,
  descriptions), each naming the fields that changed;
- `summary`: the same in a few lines of text.

Layout and written form are ignored (a target written `b` or `#m.b` is the same target);
guarded-transition priority and action order are semantic.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from statekit.analysis.draft import resolve_history_target, resolve_or_none
from statekit.analysis.matching import (
    TransitionInfo,
    actions_data,
    canonical_json,
    event_label,
    guard_data,
    match_states,
    match_transitions,
    transition_infos,
)
from statekit.model import MachineModel, StateNode
from statekit.model.resolve import Resolver
from statekit.model.write import invoke_config

SEMANTIC_CHANGES_VERSION = 1

#: State fields that count as structural/behavioural (they make a node "updated").
STRUCTURAL_STATE_FIELDS = ("key", "id", "parent", "type", "initial", "history", "historyTarget", "entry", "exit",
                           "invoke", "tags", "output", "regionOrder")
#: Transition fields that count as structural/behavioural (they make an edge "updated").
STRUCTURAL_TRANSITION_FIELDS = ("source", "target", "event", "label", "guard", "actions", "reenter", "priority")
TRANSITION_FIELD_ORDER = (*STRUCTURAL_TRANSITION_FIELDS, "description", "meta", "extra")


@dataclass
class MachineDiff:
    """The comparison of two machines; `state_map` and `transition_pairs` feed patch generation."""

    before: MachineModel
    after: MachineModel
    state_map: dict[str, str]
    nodes: dict[str, list[Any]] = field(default_factory=lambda: {"added": [], "removed": [], "updated": []})
    edges: dict[str, list[Any]] = field(default_factory=lambda: {"added": [], "removed": [], "updated": []})
    changes: list[dict[str, Any]] = field(default_factory=list)

    @property
    def has_changes(self) -> bool:
        return bool(self.changes)

    def to_json(self) -> dict[str, Any]:
        return {
            "summary": self.summary(),
            "diff": {"nodes": self.nodes, "edges": self.edges},
            "semanticChanges": {"version": SEMANTIC_CHANGES_VERSION, "changes": self.changes},
            "hasChanges": self.has_changes,
        }

    def summary_lines(self) -> list[str]:
        """One line per semantic change."""
        return [describe_change(change) for change in self.changes]

    def summary(self) -> str:
        if not self.changes:
            return "No behavioural or structural changes."
        counts = []
        for kind, label in (("nodes", "state"), ("edges", "transition")):
            part = getattr(self, kind)
            numbers = [f"{len(part[k])} {k}" for k in ("added", "removed", "updated") if part[k]]
            if numbers:
                counts.append(f"{label}s: {', '.join(numbers)}")
        other = [c for c in self.changes if not _is_structural(c)]
        if other:
            counts.append(f"{len(other)} non-structural change(s)")
        head = "; ".join(counts) + "."
        return "\n".join([head, *(f"- {line}" for line in self.summary_lines())])


def _is_structural(change: dict[str, Any]) -> bool:
    kind = change["type"]
    if kind in ("stateAdded", "stateRemoved", "transitionAdded", "transitionRemoved"):
        return True
    structural = STRUCTURAL_STATE_FIELDS if kind == "stateUpdated" else (
        STRUCTURAL_TRANSITION_FIELDS if kind == "transitionUpdated" else ())
    return any(f in structural for f in change.get("fields", []))


def describe_change(change: dict[str, Any]) -> str:
    """A change as one readable sentence."""
    kind = change["type"]
    if kind == "stateAdded":
        return f"Added {change['stateType']} state `{change['stateId']}`."
    if kind == "stateRemoved":
        return f"Removed state `{change['stateId']}`."
    if kind == "stateUpdated":
        before, after = change["before"], change["after"]
        parts = []
        for name in change["fields"]:
            if name == "key":
                parts.append(f"renamed `{change['beforeId']}` to `{change['stateId']}`")
            elif name == "parent":
                parts.append(f"moved from `{before['parent']}` to `{after['parent']}`")
            else:
                parts.append(f"{name}: {_short(before.get(name))} -> {_short(after.get(name))}")
        return f"State `{change['stateId']}`: {'; '.join(parts)}."
    if kind == "transitionAdded":
        return f"Added transition {_edge_text(change['transition'])}."
    if kind == "transitionRemoved":
        return f"Removed transition {_edge_text(change['transition'])}."
    if kind == "transitionUpdated":
        before, after = change["before"], change["after"]
        parts = [f"{name}: {_short(before.get(name))} -> {_short(after.get(name))}"
                 for name in change["fields"] if name != "label"]
        return f"Transition {_edge_text(after)}: {'; '.join(parts)}."
    parts = [f"{name}: {_short(change['before'].get(name))} -> {_short(change['after'].get(name))}"
             for name in change["fields"]]
    return f"Machine: {'; '.join(parts)}."


def _edge_text(edge: dict[str, Any]) -> str:
    targets = edge.get("target")
    target_text = ", ".join(f"`{t}`" for t in targets) if targets else "(no target)"
    guard = f" [{_short(edge['guard'])}]" if edge.get("guard") is not None else ""
    return f"`{edge['source']}` --{edge['label']}{guard}--> {target_text}"


def _short(value: Any, limit: int = 60) -> str:
    if value is None:
        return "none"
    text = value if isinstance(value, str) else canonical_json(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --- building the diff ------------------------------------------------------------------------


def diff_models(before: MachineModel, after: MachineModel) -> MachineDiff:
    """Compare two machines structurally."""
    state_map = match_states(before, after)
    result = MachineDiff(before=before, after=after, state_map=state_map)
    _machine_changes(result)
    _state_changes(result)
    _transition_changes(result)
    return result


def _machine_changes(result: MachineDiff) -> None:
    before, after = result.before, result.after
    old = {"context": before.context if before.has_context else None}
    new = {"context": after.context if after.has_context else None}
    for key in sorted(set(before.extra) | set(after.extra)):
        if key == "schemas" and isinstance(before.extra.get(key, {}), dict) and isinstance(after.extra.get(key, {}), dict):
            old_schemas, new_schemas = before.extra.get(key) or {}, after.extra.get(key) or {}
            for name in sorted(set(old_schemas) | set(new_schemas)):
                old[f"schemas.{name}"] = old_schemas.get(name)
                new[f"schemas.{name}"] = new_schemas.get(name)
        else:
            old[key] = before.extra.get(key)
            new[key] = after.extra.get(key)
    fields = [name for name in old if canonical_json(old[name]) != canonical_json(new[name])]
    if fields:
        result.changes.append({
            "type": "machineUpdated",
            "fields": fields,
            "before": {name: old[name] for name in fields},
            "after": {name: new[name] for name in fields},
        })


def state_data(node: StateNode) -> dict[str, Any]:
    """The comparable data of a state (ids of related states are filled in by the caller)."""
    return {
        "key": node.key,
        "id": node.explicit_id if node.parent_id is not None else None,
        "type": node.type,
        "history": node.history,
        "entry": actions_data(node.entry),
        "exit": actions_data(node.exit),
        "invoke": [invoke_config(invoke) for invoke in node.invoke],
        "tags": list(node.tags),
        "output": node.output if node.has_output else None,
        "description": node.description,
        "meta": node.meta,
        "extra": dict(node.extra) or None,
    }


def graph_node(node: StateNode) -> dict[str, Any]:
    """A state as a graph node (the `nodes.added` / `nodes.removed` entries)."""
    initial = node.child(node.initial) if node.initial else None
    return {
        "id": node.id,
        "parentId": node.parent_id,
        "key": node.key,
        "type": node.type,
        "initialNodeId": initial.id if initial else None,
        "label": node.description or node.key,
    }


def _state_changes(result: MachineDiff) -> None:
    before, after, state_map = result.before, result.after, result.state_map
    reverse = {b: a for a, b in state_map.items()}
    for node in after.root.walk():
        if node.id not in reverse:
            result.nodes["added"].append(graph_node(node))
            result.changes.append({"type": "stateAdded", "stateId": node.id, "parentId": node.parent_id,
                                   "stateType": node.type})
            continue
        old_node = before.nodes[reverse[node.id]]
        old = _related_state_data(old_node, before, lambda i: state_map.get(i, "?" + i))
        new = _related_state_data(node, after, lambda i: i)
        old["regionOrder"], new["regionOrder"] = _region_orders(old_node, node, state_map)
        fields = [name for name in old if canonical_json(old[name]) != canonical_json(new[name])]
        if not fields:
            continue
        old_values = {name: _before_value(name, old[name], old_node) for name in fields}
        new_values = {name: new[name] for name in fields}
        result.changes.append({
            "type": "stateUpdated",
            "stateId": node.id,
            "beforeId": old_node.id,
            "fields": fields,
            "before": old_values,
            "after": new_values,
        })
        structural = [name for name in fields if name in STRUCTURAL_STATE_FIELDS]
        if structural:
            result.nodes["updated"].append({
                "id": node.id,
                "beforeId": old_node.id,
                "fields": structural,
                "old": {name: old_values[name] for name in structural},
                "new": {name: new_values[name] for name in structural},
            })
    for node in before.root.walk():
        if node.id not in state_map:
            result.nodes["removed"].append(graph_node(node))
            result.changes.append({"type": "stateRemoved", "stateId": node.id})


def _region_orders(old: StateNode, new: StateNode, state_map: dict[str, str]) -> tuple[Any, Any]:
    """The order of the regions both versions share, when either is parallel (else None, None).

    Document order of children matters only for parallel states: regions are entered, exited
    and searched for transitions in that order. Added or removed regions are reported as
    such, so only the relative order of the shared ones is compared here.
    """
    if "parallel" not in (old.type, new.type):
        return None, None
    new_ids = {child.id for child in new.children}
    old_order = [state_map[c.id] for c in old.children if state_map.get(c.id) in new_ids]
    shared = set(old_order)
    return old_order, [c.id for c in new.children if c.id in shared]


def _before_value(name: str, mapped: Any, node: StateNode) -> Any:
    """Report ids in the before machine's own terms (comparison used the mapped ones)."""
    if name == "parent":
        return node.parent_id
    if name == "initial":
        child = node.child(node.initial) if node.initial else None
        return child.id if child else node.initial
    return mapped


def _related_state_data(node: StateNode, model: MachineModel, state_map: Any) -> dict[str, Any]:
    data = state_data(node)
    data["parent"] = state_map(node.parent_id) if node.parent_id else None
    initial = node.child(node.initial) if node.initial else None
    data["initial"] = state_map(initial.id) if initial else node.initial
    history_target = None
    if node.target and node.parent_id is not None:
        resolver = Resolver(model)
        parent = model.nodes[node.parent_id]
        resolved = [resolve_history_target(resolver, parent, t) for t in node.target]
        history_target = [state_map(r.id) if r else f"?{t}" for r, t in zip(resolved, node.target, strict=True)]
    data["historyTarget"] = history_target
    order = ["key", "id", "parent", "type", "initial", "history", "historyTarget", "entry", "exit", "invoke", "tags",
             "output", "description", "meta", "extra"]
    return {name: data[name] for name in order}


def edge_data(info: TransitionInfo, transition_id: str) -> dict[str, Any]:
    """A transition as a graph edge (the `edges.*` entries)."""
    transition = info.transition
    return {
        "id": transition_id,
        "source": info.source,
        "target": list(info.targets) if info.targets is not None else None,
        "event": transition.event,
        "label": event_label(info.node, transition),
        "guard": guard_data(transition),
        "actions": actions_data(transition.actions),
        "reenter": transition.reenter,
        "priority": transition.index,
        "description": transition.description,
        "meta": transition.meta,
        "extra": dict(transition.extra) or None,
    }


def _transition_changes(result: MachineDiff) -> None:
    state_map = result.state_map
    old_infos = transition_infos(result.before, lambda i: state_map.get(i, "?" + i))
    new_infos = transition_infos(result.after, lambda i: i)
    pairs = match_transitions(old_infos, new_infos)
    matched_old = {i for i, _ in pairs}
    matched_new = {j for _, j in pairs}
    moved_priority = _priority_changes(old_infos, new_infos, pairs)
    for i, j in pairs:
        old_info, new_info = old_infos[i], new_infos[j]
        old = edge_data(old_info, old_info.transition.id)
        new = edge_data(new_info, new_info.transition.id)
        old["event"] = list(old_info.slot)
        new["event"] = list(new_info.slot)
        fields = [name for name in TRANSITION_FIELD_ORDER
                  if name != "priority" and canonical_json(old[name]) != canonical_json(new[name])]
        if (i, j) in moved_priority:
            fields = [name for name in TRANSITION_FIELD_ORDER if name in fields or name == "priority"]
        if not fields:
            continue
        before_edge = edge_data(old_info, old_info.transition.id)
        before_edge["source"] = old_info.node.id
        before_edge["target"] = _own_targets(result.before, old_info)
        after_edge = edge_data(new_info, new_info.transition.id)
        change = {
            "type": "transitionUpdated",
            "transitionId": new_info.transition.id,
            "beforeId": old_info.transition.id,
            "fields": fields,
            "before": before_edge,
            "after": after_edge,
        }
        result.changes.append(change)
        structural = [name for name in fields if name in STRUCTURAL_TRANSITION_FIELDS]
        if structural:
            result.edges["updated"].append({
                "id": new_info.transition.id,
                "beforeId": old_info.transition.id,
                "fields": structural,
                "old": {name: before_edge[name] for name in structural},
                "new": {name: after_edge[name] for name in structural},
            })
    for j, info in enumerate(new_infos):
        if j not in matched_new:
            edge = edge_data(info, info.transition.id)
            result.edges["added"].append(edge)
            result.changes.append({"type": "transitionAdded", "transitionId": info.transition.id, "transition": edge})
    for i, info in enumerate(old_infos):
        if i not in matched_old:
            edge = edge_data(info, info.transition.id)
            edge["source"] = info.node.id
            edge["target"] = _own_targets(result.before, info)
            result.edges["removed"].append(edge)
            result.changes.append({"type": "transitionRemoved", "transitionId": info.transition.id, "transition": edge})


def _own_targets(model: MachineModel, info: TransitionInfo) -> list[str] | None:
    """Targets in the before machine's own ids (the info holds them mapped to the after machine)."""
    if info.transition.targets is None:
        return None
    resolver = Resolver(model)
    result = []
    for target in info.transition.targets:
        node = resolve_or_none(resolver, info.node, target)
        result.append(node.id if node else f"?{target}")
    return result


def _priority_changes(
    old_infos: list[TransitionInfo], new_infos: list[TransitionInfo], pairs: list[tuple[int, int]]
) -> set[tuple[int, int]]:
    """Pairs whose rank among the surviving transitions of their (source, event) group changed."""
    groups: dict[tuple[str, tuple[str, ...]], list[tuple[int, int]]] = {}
    for i, j in pairs:
        new_info = new_infos[j]
        old_info = old_infos[i]
        if (old_info.source, old_info.slot) != (new_info.source, new_info.slot):
            continue
        groups.setdefault((new_info.source, new_info.slot), []).append((i, j))
    changed: set[tuple[int, int]] = set()
    for members in groups.values():
        by_old = sorted(members, key=lambda pair: old_infos[pair[0]].transition.index)
        by_new = sorted(members, key=lambda pair: new_infos[pair[1]].transition.index)
        for old_rank, pair in enumerate(by_old):
            if by_new.index(pair) != old_rank:
                changed.add(pair)
    return changed
