"""Pair the states and transitions of two machines, recognising renames, moves and retargets.

States are matched by id first; then a child whose parent is matched keeps its key's partner
(so renaming a parent does not lose its children); then what is left is paired by
structural similarity (key, parent, type, children, outgoing and incoming transitions).
Transitions are matched in passes from strict to loose: identical, same (source, event,
guard), same (source, event), same (source, target, guard), same (event, target, guard).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import Any

from statekit.analysis.draft import resolve_or_none
from statekit.model import MachineModel, StateNode, Transition
from statekit.model.resolve import Resolver
from statekit.model.write import action_to_config, guard_to_config

#: Similarity pairing is quadratic; beyond this many candidate pairs, unmatched states stay unmatched.
MAX_SIMILARITY_PAIRS = 250_000
MIN_SIMILARITY = 4.0


def canonical_json(value: Any) -> str:
    """A stable text form for comparing JSON-like values (key order ignored)."""
    return json.dumps(value, sort_keys=True, default=repr, ensure_ascii=False)


def event_slot(node: StateNode, transition: Transition) -> tuple[str, ...]:
    """What selects a transition, independent of its source's id (after delays, invoke ids)."""
    if transition.kind == "on":
        return ("on", transition.event)
    if transition.kind == "after":
        return ("after", str(transition.delay))
    if transition.kind.startswith("invoke.") and transition.invoke_index is not None:
        invoke = node.invoke[transition.invoke_index]
        return (transition.kind, invoke.id if invoke.id_given else f"#{transition.invoke_index}")
    return (transition.kind,)


def event_label(node: StateNode, transition: Transition) -> str:
    """How a person names the event: `STOP`, `after 1000`, `always`, `onDone`, `fetch.onDone`."""
    if transition.kind == "on":
        return transition.event
    if transition.kind == "after":
        return f"after {transition.delay}"
    if transition.kind == "always":
        return "always"
    if transition.kind == "onDone":
        return "onDone"
    if transition.invoke_index is not None:
        return f"{node.invoke[transition.invoke_index].src}.{transition.kind.split('.', 1)[1]}"
    return transition.kind


def guard_data(transition: Transition) -> Any:
    return guard_to_config(transition.guard) if transition.guard is not None else None


def actions_data(actions: Iterable[Any]) -> list[Any]:
    return [action_to_config(action) for action in actions]


@dataclass(frozen=True)
class TransitionInfo:
    """A transition with what matching compares, in the *after* machine's state ids."""

    transition: Transition
    node: StateNode
    source: str
    slot: tuple[str, ...]
    targets: tuple[str, ...] | None
    guard: str
    actions: str


def transition_infos(model: MachineModel, state_map: Callable[[str], str]) -> list[TransitionInfo]:
    """Every transition of `model` with ids translated by `state_map` (identity for the after side)."""
    resolver = Resolver(model)
    infos = []
    for node in model.root.walk():
        for transition in node.transitions:
            targets: tuple[str, ...] | None = None
            if transition.targets is not None:
                resolved = [resolve_or_none(resolver, node, t) for t in transition.targets]
                targets = tuple(state_map(r.id) if r is not None else f"?{t}" for r, t in zip(resolved, transition.targets, strict=True))
            infos.append(
                TransitionInfo(
                    transition=transition,
                    node=node,
                    source=state_map(node.id),
                    slot=event_slot(node, transition),
                    targets=targets,
                    guard=canonical_json(guard_data(transition)),
                    actions=canonical_json(actions_data(transition.actions)),
                )
            )
    return infos


def match_transitions(before: list[TransitionInfo], after: list[TransitionInfo]) -> list[tuple[int, int]]:
    """Pairs (index in before, index in after), strict passes first."""
    passes: list[Callable[[TransitionInfo], Hashable]] = [
        lambda i: (i.source, i.slot, i.guard, i.targets, i.actions),
        lambda i: (i.source, i.slot, i.guard),
        lambda i: (i.source, i.slot),
        lambda i: (i.source, i.targets, i.guard),
        lambda i: (i.slot, i.targets, i.guard),
    ]
    used_before: set[int] = set()
    used_after: set[int] = set()
    pairs: list[tuple[int, int]] = []
    for key in passes:
        waiting: dict[Hashable, list[int]] = {}
        for index, info in enumerate(before):
            if index not in used_before:
                waiting.setdefault(key(info), []).append(index)
        for index, info in enumerate(after):
            if index in used_after:
                continue
            candidates = waiting.get(key(info))
            if candidates:
                partner = candidates.pop(0)
                used_before.add(partner)
                used_after.add(index)
                pairs.append((partner, index))
    return sorted(pairs, key=lambda pair: pair[1])


def match_states(before: MachineModel, after: MachineModel) -> dict[str, str]:
    """Before id -> after id for every state that survives (possibly renamed or moved)."""
    mapping: dict[str, str] = {before.root.id: after.root.id}
    taken: set[str] = {after.root.id}
    for state_id in before.nodes:
        if state_id in after.nodes and state_id not in mapping and state_id not in taken:
            mapping[state_id] = state_id
            taken.add(state_id)
    while True:
        _carry_children(before, after, mapping, taken)
        if not _pair_by_similarity(before, after, mapping, taken):
            return mapping


def _carry_children(before: MachineModel, after: MachineModel, mapping: dict[str, str], taken: set[str]) -> None:
    reverse = {b: a for a, b in mapping.items()}
    for node in after.root.walk():
        if node.id in taken or node.parent_id not in reverse:
            continue
        partner_parent = before.nodes[reverse[node.parent_id]]
        candidate = partner_parent.child(node.key)
        if candidate is not None and candidate.id not in mapping:
            mapping[candidate.id] = node.id
            taken.add(node.id)
            reverse[node.id] = candidate.id


def _edge_signatures(model: MachineModel, state_map: Callable[[str], str]) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    outgoing: dict[str, set[str]] = {}
    incoming: dict[str, set[str]] = {}
    for info in transition_infos(model, lambda state_id: state_id):
        outgoing.setdefault(info.node.id, set()).add(canonical_json(info.slot))
        for target in info.targets or ():
            incoming.setdefault(target, set()).add(canonical_json([state_map(info.node.id), info.slot]))
    return outgoing, incoming


def _jaccard(left: set[str], right: set[str]) -> float | None:
    if not left and not right:
        return None
    return len(left & right) / len(left | right)


def _pair_by_similarity(before: MachineModel, after: MachineModel, mapping: dict[str, str], taken: set[str]) -> bool:
    left = [n for n in before.root.walk() if n.id not in mapping]
    right = [n for n in after.root.walk() if n.id not in taken]
    if not left or not right or len(left) * len(right) > MAX_SIMILARITY_PAIRS:
        return False
    before_out, before_in = _edge_signatures(before, lambda state_id: mapping.get(state_id, "?" + state_id))
    after_out, after_in = _edge_signatures(after, lambda state_id: state_id)
    left_features = [({c.key for c in n.children}, _data_names(n)) for n in left]
    right_features = [({c.key for c in n.children}, _data_names(n)) for n in right]
    # A lone leftover child on each side of a matched parent is most likely one state renamed.
    left_per_parent: dict[str | None, int] = {}
    for node in left:
        key = mapping.get(node.parent_id) if node.parent_id else None
        left_per_parent[key] = left_per_parent.get(key, 0) + 1
    right_per_parent: dict[str | None, int] = {}
    for node in right:
        right_per_parent[node.parent_id] = right_per_parent.get(node.parent_id, 0) + 1
    scored: list[tuple[float, int, int]] = []
    for i, old in enumerate(left):
        for j, new in enumerate(right):
            same_key = old.key == new.key
            same_parent = old.parent_id is not None and mapping.get(old.parent_id) == new.parent_id
            if not (same_key or same_parent):
                continue
            score = 2.0 * same_key + 2.0 * same_parent + 1.0 * (old.type == new.type)
            if same_parent and left_per_parent.get(new.parent_id) == 1 and right_per_parent.get(new.parent_id) == 1:
                score += 1.0
            for weight, a, b in (
                (3.0, left_features[i][0], right_features[j][0]),
                (3.0, before_out.get(old.id, set()), after_out.get(new.id, set())),
                (3.0, before_in.get(old.id, set()), after_in.get(new.id, set())),
                (1.0, left_features[i][1], right_features[j][1]),
            ):
                similarity = _jaccard(a, b)
                if similarity is not None:
                    score += weight * similarity
            if score >= MIN_SIMILARITY:
                scored.append((-score, i, j))
    # Greedy, best pairs first. Matches change the parents and signatures later candidates
    # would be scored with, so the caller carries children and scores again until nothing pairs.
    used_left: set[int] = set()
    used_right: set[int] = set()
    for _, i, j in sorted(scored):
        if i in used_left or j in used_right:
            continue
        used_left.add(i)
        used_right.add(j)
        mapping[left[i].id] = right[j].id
        taken.add(right[j].id)
    return bool(used_left)


def _data_names(node: StateNode) -> set[str]:
    names = {f"tag:{t}" for t in node.tags}
    names.update(f"entry:{canonical_json(a)}" for a in actions_data(node.entry))
    names.update(f"exit:{canonical_json(a)}" for a in actions_data(node.exit))
    names.update(f"invoke:{i.src}" for i in node.invoke)
    return names
