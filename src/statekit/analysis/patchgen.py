"""Turn a machine diff into patches that rebuild the after machine from the before machine.

Patch ids are positional (a transition id holds its index, a state id its parent's path),
so they are computed while the patches are being applied to a working copy: every patch is
emitted *and applied* here, and the next patch's ids are read from the result. The working
copy marks each original state, transition and invoke with a private key so they can be
found again after renames, moves and reorders; the marks never reach a patch.

Order: machine id, then the state tree (create, rename, move, reorder, top-down), invokes,
transitions (delete, then place each one at its priority), removed invokes and states,
then state data (type, initial, actions, tags, meta, description, output) and machine data.
"""

from __future__ import annotations

from typing import Any

from statekit.analysis.diff import MachineDiff
from statekit.analysis.draft import (
    Draft,
    TransitionSlot,
    draft_from_model,
    draft_to_model,
    resolve_history_target,
    resolve_or_none,
    slot_list,
    state_config,
    transition_slot,
)
from statekit.analysis.matching import (
    actions_data,
    canonical_json,
    match_transitions,
    transition_infos,
)
from statekit.analysis.patch_catalog import SCHEMA_OPERATIONS
from statekit.analysis.patches import apply_one
from statekit.model import MachineModel, StateNode, Transition
from statekit.model.parse import DEFAULT_MACHINE_ID
from statekit.model.resolve import Resolver
from statekit.model.write import guard_to_config, invoke_config

MARK = "__statekit_patchgen__"


class _Workspace:
    """The working draft, the patches emitted so far, and lookups by mark."""

    def __init__(self, before: MachineModel) -> None:
        self.draft: Draft = draft_from_model(before)
        self.patches: list[dict[str, Any]] = []
        self._model: MachineModel | None = None
        self._states: dict[str, StateNode] = {}
        self._transitions: dict[str, tuple[StateNode, Transition]] = {}
        self._resolver: Resolver | None = None

    @property
    def model(self) -> MachineModel:
        if self._model is None:
            self._model = draft_to_model(self.draft)
            self._states = {}
            self._transitions = {}
            for node in self._model.root.walk():
                if MARK in node.extra:
                    self._states[node.extra[MARK]] = node
                for transition in node.transitions:
                    if MARK in transition.extra:
                        self._transitions[transition.extra[MARK]] = (node, transition)
            self._resolver = Resolver(self._model)
        return self._model

    @property
    def resolver(self) -> Resolver:
        """A resolver for the current model (rebuilt with it)."""
        _ = self.model
        assert self._resolver is not None
        return self._resolver

    def emit(self, patch: dict[str, Any]) -> None:
        apply_one(self.draft, patch, f"generated patch {len(self.patches)}")
        self.patches.append(patch)
        self._model = None

    def state(self, mark: str) -> StateNode:
        _ = self.model
        return self._states[mark]

    def transition(self, mark: str) -> tuple[StateNode, Transition]:
        _ = self.model
        return self._transitions[mark]

    def invoke_index(self, node: StateNode, mark: str) -> int | None:
        for index, invoke in enumerate(node.invoke):
            if invoke.extra.get(MARK) == mark:
                return index
        return None

    def mark_state(self, node: StateNode, mark: str) -> None:
        state_config(self.draft, node)[MARK] = mark
        self._model = None

    def mark_invoke(self, node: StateNode, index: int, mark: str) -> None:
        state_config(self.draft, node)["invoke"][index][MARK] = mark
        self._model = None

    def mark_transition(self, node: StateNode, transition: Transition, mark: str) -> None:
        config = state_config(self.draft, node)
        slot_list(config, transition_slot(node, transition, config))[transition.index][MARK] = mark
        self._model = None


def generate_patches(diff: MachineDiff) -> list[dict[str, Any]]:
    """Patches that turn `diff.before` into `diff.after` (up to the documented normalisations)."""
    return _Generator(diff).run()


class _Generator:
    def __init__(self, diff: MachineDiff) -> None:
        self.before = diff.before
        self.after = diff.after
        self.state_map = diff.state_map
        self.reverse = {b: a for a, b in diff.state_map.items()}
        self.work = _Workspace(diff.before)
        self.old_infos = transition_infos(self.before, lambda i: self.state_map.get(i, "?" + i))
        self.new_infos = transition_infos(self.after, lambda i: i)
        self.pairs = {j: i for i, j in match_transitions(self.old_infos, self.new_infos)}
        self.after_resolver = Resolver(diff.after)
        self._mark_originals()

    def _mark_originals(self) -> None:
        draft = self.work.draft
        for node in self.before.root.walk():
            config = state_config(draft, node)
            if node.parent_id is not None:
                config[MARK] = f"s:{node.id}"
            for index, invoke in enumerate(config.get("invoke") or []):
                invoke[MARK] = f"i:{node.id}:{index}"
        for index, info in enumerate(self.old_infos):
            config = state_config(draft, info.node)
            slot = transition_slot(info.node, info.transition, config)
            slot_list(config, slot)[info.transition.index][MARK] = f"t:{index}"

    # -- lookups -----------------------------------------------------------------------------

    def current(self, after_id: str) -> StateNode:
        """The working copy's node that stands for the after machine's state `after_id`."""
        if after_id == self.after.root.id:
            return self.work.model.root
        before_id = self.reverse.get(after_id)
        return self.work.state(f"s:{before_id}" if before_id is not None else f"n:{after_id}")

    def run(self) -> list[dict[str, Any]]:
        self._machine_id()
        self._state_tree(self.after.root)
        self._invokes()
        self._delete_transitions()
        self._place_transitions()
        self._delete_invokes()
        self._delete_states()
        self._state_ids()
        for node in self.after.root.walk():
            self._state_data(node)
        self._machine_data()
        return self.work.patches

    # -- the tree ----------------------------------------------------------------------------

    def _machine_id(self) -> None:
        if self.before.root.key != self.after.root.key:
            self.work.emit({"op": "renameState", "stateId": self.work.model.root.id, "newKey": self.after.root.key})

    def _state_tree(self, parent: StateNode) -> None:
        # Children's document order means something only in a parallel state (the order regions
        # are entered and selected in), so only there are children placed at their index.
        ordered = parent.type == "parallel"
        for index, child in enumerate(parent.children):
            target_parent = self.current(parent.id)
            place_at = index if ordered and index < len(target_parent.children) else None
            before_id = self.reverse.get(child.id)
            if before_id is None:
                self._free_key(target_parent, child.key, None)
                patch: dict[str, Any] = {"op": "createState", "parentId": target_parent.id, "key": child.key}
                if child.type_given:
                    patch["type"] = child.type
                if child.type == "history" and child.history in ("shallow", "deep"):
                    patch["history"] = child.history
                if place_at is not None:
                    patch["index"] = place_at
                self.work.emit(patch)
                created = self.current(parent.id).child(child.key)
                assert created is not None
                self.work.mark_state(created, f"n:{child.id}")
            else:
                node = self.work.state(f"s:{before_id}")
                mark = f"s:{before_id}"
                if node.parent_id != target_parent.id:
                    # Move first, then rename among the new siblings: renaming in the old parent
                    # could push aside a state already placed there. A key taken in the new
                    # parent is dodged with a temporary key that is free on both sides.
                    if target_parent.child(node.key) is not None:
                        old_parent = self.work.model.nodes[str(node.parent_id)]
                        taken = {c.key for c in old_parent.children} | {c.key for c in target_parent.children}
                        self.work.emit({"op": "renameState", "stateId": node.id,
                                        "newKey": _fresh_key(node.key, taken)})
                        node = self.work.state(mark)
                    move: dict[str, Any] = {"op": "moveState", "stateId": node.id, "parentId": target_parent.id}
                    if place_at is not None:
                        move["index"] = place_at
                    self.work.emit(move)
                    node = self.work.state(mark)
                    target_parent = self.current(parent.id)
                elif ordered:
                    position = [c.id for c in target_parent.children].index(node.id)
                    if position != index:
                        self.work.emit({"op": "moveState", "stateId": node.id, "parentId": target_parent.id,
                                        "index": index})
                        node = self.work.state(mark)
                if node.key != child.key:
                    # Whoever holds the key here is not placed yet (a placed sibling has another key).
                    self._free_key(self.current(parent.id), child.key, node.id)
                    self.work.emit({"op": "renameState", "stateId": self.work.state(mark).id, "newKey": child.key})
            self._state_tree(child)

    def _free_key(self, parent: StateNode, key: str, keep: str | None) -> None:
        """Rename a child of `parent` that holds `key` (it is leaving or being deleted) out of the way."""
        occupant = parent.child(key)
        if occupant is None or occupant.id == keep:
            return
        self.work.emit({"op": "renameState", "stateId": occupant.id,
                        "newKey": _fresh_key(key, {c.key for c in parent.children})})

    def _delete_states(self) -> None:
        for node in self.before.root.walk():
            if node.id in self.state_map or node.parent_id is None:
                continue
            if node.parent_id not in self.state_map:
                continue  # goes with its removed parent
            self.work.emit({"op": "deleteState", "stateId": self.work.state(f"s:{node.id}").id})

    # -- invokes -----------------------------------------------------------------------------

    def _invokes(self) -> None:
        self.leftover_invokes: list[str] = []
        for node in self.after.root.walk():
            current = self.current(node.id)
            marks = [invoke.extra.get(MARK) for invoke in current.invoke]
            wanted = [invoke_config(invoke, with_extra=False) for invoke in node.invoke]
            partners = _pair_invokes([invoke_config(invoke, with_extra=False) for invoke in current.invoke], wanted)
            for index, config in enumerate(wanted):
                current = self.current(node.id)
                partner = partners.get(index)
                if partner is None:
                    self.work.emit({"op": "createInvoke", "stateId": current.id, **config, "index": index})
                    current = self.current(node.id)
                    self.work.mark_invoke(current, index, f"j:{node.id}:{index}")
                    continue
                position = self.work.invoke_index(current, str(marks[partner]))
                assert position is not None
                present = invoke_config(current.invoke[position], with_extra=False)
                patch: dict[str, Any] = {"op": "updateInvoke", "stateId": current.id,
                                         "invokeId": current.invoke[position].id}
                for name in ("src", "id", "input", "systemId"):
                    if canonical_json(present.get(name)) != canonical_json(config.get(name)) or (
                        (name in present) != (name in config)
                    ):
                        patch[name] = config.get(name)
                if position != index:
                    patch["index"] = index
                if len(patch) > 3:
                    self.work.emit(patch)
            used = {str(marks[p]) for p in partners.values()}
            self.leftover_invokes.extend(str(m) for m in marks if m is not None and str(m) not in used)

    def _delete_invokes(self) -> None:
        for mark in self.leftover_invokes:
            state_id = mark.split(":", 1)[1].rsplit(":", 1)[0]
            if state_id not in self.state_map:
                continue  # goes with its removed state
            node = self.work.state(f"s:{state_id}") if state_id != self.before.root.id else self.work.model.root
            position = self.work.invoke_index(node, mark)
            if position is not None:
                self.work.emit({"op": "deleteInvoke", "stateId": node.id, "invokeId": node.invoke[position].id})

    # -- transitions -------------------------------------------------------------------------

    def _delete_transitions(self) -> None:
        matched = set(self.pairs.values())
        for index, info in enumerate(self.old_infos):
            if index in matched or info.node.id not in self.state_map:
                continue
            _, transition = self.work.transition(f"t:{index}")
            self.work.emit({"op": "deleteTransition", "transitionId": transition.id})

    def _place_transitions(self) -> None:
        groups: dict[tuple[str, tuple[str, ...]], list[int]] = {}
        for j, info in enumerate(self.new_infos):
            key = (info.node.id, (info.transition.kind, info.transition.event, str(info.transition.invoke_index)))
            groups.setdefault(key, []).append(j)
        for members in groups.values():
            for priority, j in enumerate(members):
                if j in self.pairs:
                    self._update_transition(j, priority)
                else:
                    self._create_transition(j, priority)

    def _event_type(self, wanted: Transition, source: StateNode) -> str:
        if wanted.kind == "on":
            return wanted.event
        if wanted.kind == "always":
            return ""
        if wanted.kind == "after":
            delay_key = getattr(wanted, "delay_key", None) or _delay_text(wanted.delay)
            return f"xstate.after.{delay_key}.{source.id}"
        if wanted.kind == "onDone":
            return f"xstate.done.state.{source.id}"
        prefix = {"invoke.onDone": "xstate.done.actor.", "invoke.onError": "xstate.error.actor.",
                  "invoke.onSnapshot": "xstate.snapshot."}[wanted.kind]
        assert wanted.invoke_index is not None
        return prefix + source.invoke[wanted.invoke_index].id

    def _wanted_targets(self, node: StateNode, wanted: Transition) -> list[str] | None:
        if wanted.targets is None:
            return None
        resolver = self.after_resolver
        result = []
        for target in wanted.targets:
            resolved = resolve_or_none(resolver, node, target)
            if resolved is not None:
                result.append(self.current(resolved.id).id)
        return result

    def _current_targets(self, node: StateNode, transition: Transition) -> list[str] | None:
        if transition.targets is None:
            return None
        resolver = self.work.resolver
        resolved = [resolve_or_none(resolver, node, t) for t in transition.targets]
        return [r.id if r is not None else f"?{t}" for r, t in zip(resolved, transition.targets, strict=True)]

    def _update_transition(self, j: int, priority: int) -> None:
        info = self.new_infos[j]
        wanted = info.transition
        source = self.current(info.node.id)
        node, present = self.work.transition(f"t:{self.pairs[j]}")
        transition_id = present.id
        patch: dict[str, Any] = {"op": "updateTransition", "transitionId": transition_id}
        moved = node.id != source.id
        if moved:
            patch["sourceId"] = source.id
        event_type = self._event_type(wanted, source)
        if present.event != event_type or moved:
            patch["eventType"] = event_type
        wanted_targets = self._wanted_targets(info.node, wanted)
        if moved or wanted_targets != self._current_targets(node, present):
            patch["targetId"] = _target_value(wanted_targets)
        patch.update(_data_changes(present, wanted))
        if "eventType" in patch or present.index != priority:
            patch["priority"] = priority
        if len(patch) > 2:
            self.work.emit(patch)

    def _create_transition(self, j: int, priority: int) -> None:
        info = self.new_infos[j]
        wanted = info.transition
        source = self.current(info.node.id)
        patch: dict[str, Any] = {"op": "createTransition", "sourceId": source.id,
                                 "eventType": self._event_type(wanted, source)}
        targets = self._wanted_targets(info.node, wanted)
        if targets:
            patch["targetId"] = _target_value(targets)
        patch.update({k: v for k, v in _data_changes(Transition(source.id, "on", "", None), wanted).items()
                      if v is not None})
        config = state_config(self.work.draft, source)
        group_size = len(slot_list(config, _slot_of(wanted, source, config)))
        if priority < group_size:
            patch["priority"] = priority
        self.work.emit(patch)
        source = self.current(info.node.id)
        for transition in source.transitions:
            if (transition.kind, transition.event, transition.invoke_index, transition.index) == (
                wanted.kind, self._event_type(wanted, source), wanted.invoke_index, priority
            ):
                self.work.mark_transition(source, transition, f"b:{j}")
                return
        raise LookupError(f"created transition {j} not found")

    # -- state and machine data --------------------------------------------------------------

    def _state_ids(self) -> None:
        """Explicit ids: clear the changing ones first, so a moved id never clashes with itself."""
        changing = [wanted for wanted in self.after.root.walk()
                    if wanted.parent_id is not None and self.current(wanted.id).explicit_id != wanted.explicit_id]
        for wanted in changing:
            if self.current(wanted.id).explicit_id is not None:
                self.work.emit({"op": "setStateId", "stateId": self.current(wanted.id).id, "id": None})
        for wanted in changing:
            if wanted.explicit_id is not None:
                self.work.emit({"op": "setStateId", "stateId": self.current(wanted.id).id, "id": wanted.explicit_id})

    def _state_data(self, wanted: StateNode) -> None:
        node = self.current(wanted.id)
        config = state_config(self.work.draft, node)
        type_patch: dict[str, Any] = {"op": "setStateType", "stateId": node.id,
                                      "type": wanted.type if wanted.type_given else None}
        # Whether a type is written or inferred is written form; only the effective type counts.
        differs = node.type != wanted.type
        if wanted.type == "history":
            history = wanted.history if wanted.history in ("shallow", "deep") else "shallow"
            if config.get("history") not in (history, True if history == "shallow" else history) or differs:
                type_patch["history"] = history
                differs = True
            wanted_target = None
            if wanted.target and wanted.parent_id is not None:
                resolver = Resolver(self.after)
                parent = self.after.nodes[wanted.parent_id]
                resolved = [resolve_history_target(resolver, parent, t) for t in wanted.target]
                wanted_target = [self.current(r.id).id for r in resolved if r is not None]
            present_target = None
            if node.target and node.parent_id is not None:
                resolver = Resolver(self.work.model)
                present_parent = self.work.model.nodes[node.parent_id]
                present = [resolve_history_target(resolver, present_parent, t) for t in node.target]
                present_target = [r.id if r is not None else f"?{t}" for r, t in zip(present, node.target, strict=True)]
            if wanted_target != present_target:
                type_patch["historyTargetId"] = _target_value(wanted_target)
                differs = True
        if differs:
            self.work.emit(type_patch)
            node = self.current(wanted.id)
        if node.initial != wanted.initial:
            child = node.child(wanted.initial) if wanted.initial else None
            if wanted.initial is None or child is not None:
                self.work.emit({"op": "setInitialState", "stateId": node.id,
                                "initialStateId": child.id if child else None})
        for op, name in (("setEntryActions", "entry"), ("setExitActions", "exit")):
            present, target = actions_data(getattr(node, name)), actions_data(getattr(wanted, name))
            if canonical_json(present) != canonical_json(target):
                self.work.emit({"op": op, "stateId": node.id, "actions": target})
        if list(node.tags) != list(wanted.tags):
            self.work.emit({"op": "setTags", "stateId": node.id, "tags": list(wanted.tags)})
        for op, name, present_value, wanted_value in (
            ("setMeta", "meta", node.meta, wanted.meta),
            ("setDescription", "description", node.description, wanted.description),
            ("setOutput", "output", node.output if node.has_output else None,
             wanted.output if wanted.has_output else None),
        ):
            if canonical_json(present_value) != canonical_json(wanted_value):
                self.work.emit({"op": op, "stateId": node.id, name: wanted_value})

    def _machine_data(self) -> None:
        present = self.work.model
        present_context = present.context if present.has_context else None
        wanted_context = self.after.context if self.after.has_context else None
        if canonical_json(present_context) != canonical_json(wanted_context):
            self.work.emit({"op": "setContext", "context": wanted_context})
        present_schemas = present.extra.get("schemas") or {}
        wanted_schemas = self.after.extra.get("schemas") or {}
        if isinstance(present_schemas, dict) and isinstance(wanted_schemas, dict):
            for op, name in SCHEMA_OPERATIONS.items():
                if canonical_json(present_schemas.get(name)) != canonical_json(wanted_schemas.get(name)):
                    self.work.emit({"op": op, "schema": wanted_schemas.get(name)})


def _fresh_key(key: str, taken: set[str]) -> str:
    number = 1
    while f"{key}_{number}" in taken:
        number += 1
    return f"{key}_{number}"


def _slot_of(wanted: Transition, source: StateNode, config: dict[str, Any]) -> TransitionSlot:
    """Where `wanted` will go in `source` (for its current group size)."""
    if wanted.kind == "on":
        return TransitionSlot("on", wanted.event)
    if wanted.kind == "after":
        return TransitionSlot("after", getattr(wanted, "delay_key", None) or _delay_text(wanted.delay))
    if wanted.kind.startswith("invoke."):
        return TransitionSlot(wanted.kind, str(wanted.invoke_index))
    return TransitionSlot(wanted.kind)


def _delay_text(delay: Any) -> str:
    if isinstance(delay, float) and delay.is_integer():
        return str(int(delay))
    return str(delay)


def _target_value(targets: list[str] | None) -> Any:
    if not targets:
        return None
    return targets[0] if len(targets) == 1 else targets


def _data_changes(present: Transition, wanted: Transition) -> dict[str, Any]:
    """Guard, actions, reenter, description and meta fields that differ (None clears)."""
    changes: dict[str, Any] = {}
    present_guard = guard_to_config(present.guard) if present.guard is not None else None
    wanted_guard = guard_to_config(wanted.guard) if wanted.guard is not None else None
    if canonical_json(present_guard) != canonical_json(wanted_guard):
        changes["guard"] = wanted_guard
    if canonical_json(actions_data(present.actions)) != canonical_json(actions_data(wanted.actions)):
        changes["actions"] = actions_data(wanted.actions) or None
    if (present.reenter_given, present.reenter) != (wanted.reenter_given, wanted.reenter):
        changes["reenter"] = wanted.reenter if wanted.reenter_given else None
    if present.description != wanted.description:
        changes["description"] = wanted.description
    if canonical_json(present.meta) != canonical_json(wanted.meta):
        changes["meta"] = wanted.meta
    return changes


def _pair_invokes(present: list[dict[str, Any]], wanted: list[dict[str, Any]]) -> dict[int, int]:
    """Wanted index -> present index: same explicit id first, then same src, in order."""
    pairs: dict[int, int] = {}
    used: set[int] = set()
    for field in ("id", "src"):
        for w, config in enumerate(wanted):
            if w in pairs or field not in config:
                continue
            for p, candidate in enumerate(present):
                if p not in used and field in candidate and candidate[field] == config[field]:
                    pairs[w] = p
                    used.add(p)
                    break
    return pairs


__all__ = ["DEFAULT_MACHINE_ID", "generate_patches"]
