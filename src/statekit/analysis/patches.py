"""Apply semantic patches (createState, updateTransition, ...) to a machine, in memory.

Each patch is checked against the catalog, its ids are resolved against the machine as it
is at that point of the sequence (ids are positional, so an earlier patch can change a
later one's ids), and the edit is made on a draft config. Renames and moves rewrite every
target and `initial` that pointed into the moved subtree so the machine keeps meaning the
same states; deletes drop the targets into the deleted subtree.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from statekit.analysis.draft import (
    INVOKE_TRANSITION_KEYS,
    Draft,
    TransitionSlot,
    draft_from_model,
    draft_to_model,
    iter_transition_dicts,
    render_history_target,
    render_target,
    resolve_history_target,
    resolve_or_none,
    slot_list,
    state_config,
    transition_slot,
)
from statekit.analysis.patch_catalog import (
    SCHEMA_OPERATIONS,
    Operation,
    check_fields,
    did_you_mean,
    lookup_operation,
)
from statekit.errors import MachineDefinitionError, ToolError
from statekit.model import MachineModel, StateNode, Transition
from statekit.model.parse import DEFAULT_MACHINE_ID, parse_action, parse_guard
from statekit.model.resolve import Resolver

Path = tuple[str, ...]
PathMap = Callable[[Path], Path | None]

#: Each patch re-reads the machine (ids are positional), so the count is capped.
MAX_PATCHES = 2_000


class PatchContext:
    """The draft being edited plus the model parsed from it (refreshed after each edit)."""

    def __init__(self, draft: Draft, where: str = "") -> None:
        self.draft = draft
        self.where = where
        self._model: MachineModel | None = None

    @property
    def model(self) -> MachineModel:
        if self._model is None:
            try:
                self._model = draft_to_model(self.draft)
            except MachineDefinitionError as error:
                raise ToolError("invalid_input", f"{self.where}: the patch makes the machine unreadable: {error}") from None
        return self._model

    def changed(self) -> None:
        self._model = None

    def fail(self, message: str) -> ToolError:
        return ToolError("invalid_input", f"{self.where}: {message}")

    def state(self, state_id: Any, field: str = "stateId") -> StateNode:
        if not isinstance(state_id, str):
            raise self.fail(f"`{field}` must be a state id string")
        node = self.model.nodes.get(state_id)
        if node is None:
            raise self.fail(f"unknown state id {state_id!r} in `{field}`{did_you_mean(state_id, set(self.model.nodes))}")
        return node

    def transition(self, transition_id: str) -> tuple[StateNode, Transition]:
        for transition in self.model.transitions():
            if transition.id == transition_id:
                return self.model.nodes[transition.source_id], transition
        known = {t.id for t in self.model.transitions()}
        raise self.fail(f"unknown transition id {transition_id!r}{did_you_mean(transition_id, known)}")

    def config(self, node: StateNode) -> dict[str, Any]:
        return state_config(self.draft, node)


def apply_patches(model: MachineModel, patches: Any) -> MachineModel:
    """The machine after `patches`, applied in order; bad patches raise `invalid_input`."""
    draft = draft_from_model(model)
    apply_to_draft(draft, patches)
    return draft_to_model(draft)


def apply_to_draft(draft: Draft, patches: Any) -> None:
    """Apply `patches` to `draft` in place."""
    if not isinstance(patches, list):
        raise ToolError("invalid_input", "`patches` must be a list of patch objects")
    if len(patches) > MAX_PATCHES:
        raise ToolError("invalid_input", f"at most {MAX_PATCHES} patches are accepted, got {len(patches)}")
    for index, patch in enumerate(patches):
        apply_one(draft, patch, f"patches[{index}]")


def check_patch(patch: Any, where: str = "patch") -> Operation:
    """The operation of `patch` when its shape is right (an object, a known `op`, the operation's
    fields with their JSON types), else `invalid_input` saying what is wrong; needs no machine."""
    if not isinstance(patch, Mapping):
        raise ToolError("invalid_input", f"{where}: a patch must be an object with `op`")
    if "op" not in patch:
        raise ToolError("invalid_input", f"{where}: a patch needs `op`, e.g. {{\"op\": \"createTransition\", ...}}")
    operation = lookup_operation(patch["op"], where)
    check_fields(operation, dict(patch), f"{where} ({operation.name})")
    return operation


def apply_one(draft: Draft, patch: Any, where: str = "patch") -> None:
    """Apply one patch to `draft` in place."""
    operation = check_patch(patch, where)
    body = dict(patch)
    context = PatchContext(draft, f"{where} ({operation.name})")
    _HANDLERS[operation.name](context, body)


# --- states -----------------------------------------------------------------------------------


def _check_key(context: PatchContext, key: str) -> None:
    if not key or "." in key or key.startswith("#"):
        raise context.fail(f"invalid state key {key!r}: keys are non-empty and contain no '.' nor a leading '#'")


def _place(mapping: dict[str, Any], key: str, value: Any, index: int | None) -> dict[str, Any]:
    """`mapping` rebuilt with `key` at `index` (its old position removed); dict order is document order."""
    items = [(k, v) for k, v in mapping.items() if k != key]
    position = len(items) if index is None else min(index, len(items))
    items.insert(position, (key, value))
    return dict(items)


def _create_state(context: PatchContext, patch: dict[str, Any]) -> None:
    parent = context.state(patch["parentId"], "parentId")
    key = patch["key"]
    _check_key(context, key)
    if parent.child(key) is not None:
        raise context.fail(f"{parent.id!r} already has a child {key!r}")
    config: dict[str, Any] = {}
    if patch.get("type") is not None:
        config["type"] = patch["type"]
    if patch.get("type") == "history" or "history" in patch:
        config["history"] = patch.get("history", "shallow")
    parent_config = context.config(parent)
    parent_config["states"] = _place(parent_config.get("states") or {}, key, config, patch.get("index"))
    context.changed()


def _restructure(context: PatchContext, mutate: Callable[[], None], path_map: PathMap) -> None:
    """Run `mutate` and keep every target pointing at the same state (dropping deleted ones)."""
    before = context.model
    resolver = Resolver(before)
    records: list[tuple[Path, list[dict[str, Any]], dict[str, Any], list[Path | None]]] = []
    for node, group, item in iter_transition_dicts(context.draft, before):
        targets = _target_list(item.get("target"))
        resolved = [resolve_or_none(resolver, node, t) for t in targets]
        records.append((node.path, group, item, [r.path if r else None for r in resolved]))
    histories: list[tuple[Path, dict[str, Any], list[Path | None]]] = []
    for node in before.root.walk():
        if node.type == "history" and node.target and node.parent_id is not None:
            parent = before.nodes[node.parent_id]
            resolved = [resolve_history_target(resolver, parent, t) for t in node.target]
            histories.append((node.path, context.config(node), [r.path if r else None for r in resolved]))
    mutate()
    context.changed()
    after = context.model
    by_path = {node.path: node for node in after.root.walk()}
    after_resolver = Resolver(after)
    for source_path, group, item, resolved_paths in records:
        new_source = path_map(source_path)
        if new_source is None:
            continue
        source = by_path[new_source]
        rewritten = _rewritten(after, after_resolver, source, _target_list(item.get("target")), resolved_paths,
                               path_map, by_path)
        if rewritten is None:
            continue
        if rewritten:
            item["target"] = rewritten[0] if len(rewritten) == 1 else rewritten
        else:
            group.remove(item)
    for history_path, config, resolved_paths in histories:
        new_path = path_map(history_path)
        if new_path is None:
            continue
        node = by_path[new_path]
        parent = after.nodes[node.parent_id] if node.parent_id else node
        rewritten = _rewritten(after, after_resolver, parent, _target_list(config.get("target")), resolved_paths,
                               path_map, by_path, history=True)
        if rewritten is not None:
            if rewritten:
                config["target"] = rewritten[0] if len(rewritten) == 1 else rewritten
            else:
                config.pop("target", None)
    _prune_empty(context.draft)
    context.changed()


def _rewritten(
    model: MachineModel, resolver: Resolver, source: StateNode, targets: list[str], resolved_paths: list[Path | None],
    path_map: PathMap, by_path: dict[Path, StateNode], *, history: bool = False,
) -> list[str] | None:
    """The new target list, or None when nothing changed."""
    result: list[str] = []
    changed = False
    for target, old_path in zip(targets, resolved_paths, strict=True):
        if old_path is None:
            result.append(target)  # it did not resolve before: not ours to fix
            continue
        new_path = path_map(old_path)
        if new_path is None:
            changed = True
            continue
        node = by_path[new_path]
        current = (resolve_history_target if history else resolve_or_none)(resolver, source, target)
        if current is not None and current.id == node.id:
            result.append(target)
        else:
            result.append((render_history_target if history else render_target)(model, source, node))
            changed = True
    return result if changed else None


def _target_list(value: Any) -> list[str]:
    if value is None or value == "":
        return []
    return list(value) if isinstance(value, list) else [value]


def _prune_empty(config: dict[str, Any]) -> None:
    for key in ("on", "after"):
        groups = config.get(key)
        if isinstance(groups, dict):
            for descriptor in [d for d, group in groups.items() if group == []]:
                del groups[descriptor]
            if not groups:
                del config[key]
    for key in ("always", "onDone", "entry", "exit", "invoke", "tags"):
        if config.get(key) == []:
            del config[key]
    for invoke in config.get("invoke") or []:
        for key in INVOKE_TRANSITION_KEYS:
            if invoke.get(key) == []:
                del invoke[key]
    for child in (config.get("states") or {}).values():
        if isinstance(child, dict):
            _prune_empty(child)
    if config.get("states") == {}:
        del config["states"]


def _prefix_map(old: Path, new: Path | None) -> PathMap:
    def mapped(path: Path) -> Path | None:
        if path[: len(old)] != old:
            return path
        if new is None:
            return None
        return new + path[len(old):]

    return mapped


def _delete_state(context: PatchContext, patch: dict[str, Any]) -> None:
    node = context.state(patch["stateId"])
    if node.parent_id is None:
        raise context.fail("the machine root cannot be deleted")
    parent = context.model.nodes[node.parent_id]

    def mutate() -> None:
        parent_config = context.config(parent)
        del parent_config["states"][node.key]
        if parent_config.get("initial") == node.key:
            del parent_config["initial"]

    _restructure(context, mutate, _prefix_map(node.path, None))


def _rename_state(context: PatchContext, patch: dict[str, Any]) -> None:
    node = context.state(patch["stateId"])
    new_key = patch["newKey"]
    if node.parent_id is None:
        if not new_key:
            raise context.fail("the machine id cannot be empty")
        root_config = context.draft

        def rename_root() -> None:
            # The parser's placeholder for a machine without an id: writing it back means "no id".
            if new_key == DEFAULT_MACHINE_ID:
                root_config.pop("id", None)
            else:
                root_config["id"] = new_key

        _restructure(context, rename_root, lambda path: path)
        return
    _check_key(context, new_key)
    parent = context.model.nodes[node.parent_id]
    if new_key != node.key and parent.child(new_key) is not None:
        raise context.fail(f"{parent.id!r} already has a child {new_key!r}")

    def mutate() -> None:
        parent_config = context.config(parent)
        states = parent_config["states"]
        parent_config["states"] = {(new_key if k == node.key else k): v for k, v in states.items()}
        if parent_config.get("initial") == node.key:
            parent_config["initial"] = new_key

    _restructure(context, mutate, _prefix_map(node.path, (*node.path[:-1], new_key)))


def _set_state_id(context: PatchContext, patch: dict[str, Any]) -> None:
    node = context.state(patch["stateId"])
    new_id = patch["id"]
    if node.parent_id is None:
        raise context.fail("the machine id is the root's key: use renameState on the root")
    if new_id is not None:
        if not new_id or "." in new_id or new_id.startswith("#"):
            raise context.fail(f"invalid state id {new_id!r}: ids are non-empty and contain no '.' nor a leading '#'")
        clash = context.model.nodes.get(new_id)
        if clash is not None and clash.path != node.path:
            raise context.fail(f"id {new_id!r} is already the id of another state")
    config = context.config(node)

    def mutate() -> None:
        if new_id is None:
            config.pop("id", None)
        else:
            config["id"] = new_id

    _restructure(context, mutate, lambda path: path)


def _move_state(context: PatchContext, patch: dict[str, Any]) -> None:
    node = context.state(patch["stateId"])
    new_parent = context.state(patch["parentId"], "parentId")
    if node.parent_id is None:
        raise context.fail("the machine root cannot be moved")
    if new_parent.path[: len(node.path)] == node.path:
        raise context.fail(f"cannot move {node.id!r} into itself or its own descendant {new_parent.id!r}")
    old_parent = context.model.nodes[node.parent_id]
    index = patch.get("index")
    if new_parent.id == old_parent.id:
        parent_config = context.config(old_parent)
        parent_config["states"] = _place(parent_config["states"], node.key, parent_config["states"][node.key], index)
        context.changed()
        return
    if new_parent.child(node.key) is not None:
        raise context.fail(f"{new_parent.id!r} already has a child {node.key!r}; rename one of them first")

    def mutate() -> None:
        old_config = context.config(old_parent)
        moved = old_config["states"].pop(node.key)
        if old_config.get("initial") == node.key:
            del old_config["initial"]
        new_config = context.config(new_parent)
        new_config["states"] = _place(new_config.get("states") or {}, node.key, moved, index)

    _restructure(context, mutate, _prefix_map(node.path, (*new_parent.path, node.key)))


def _set_initial(context: PatchContext, patch: dict[str, Any]) -> None:
    node = context.state(patch["stateId"])
    config = context.config(node)
    initial_id = patch["initialStateId"]
    if initial_id is None:
        config.pop("initial", None)
    else:
        children = {child.id: child for child in node.children}
        if initial_id not in children:
            raise context.fail(
                f"{initial_id!r} is not a child of {node.id!r}{did_you_mean(initial_id, set(children))}"
            )
        config["initial"] = children[initial_id].key
    context.changed()


def _set_type(context: PatchContext, patch: dict[str, Any]) -> None:
    node = context.state(patch["stateId"])
    config = context.config(node)
    new_type = patch["type"]
    if new_type is None:
        config.pop("type", None)
    else:
        config["type"] = new_type
    if new_type == "history" or (new_type is None and "history" in patch):
        if "history" in patch:
            config["history"] = patch["history"]
        elif "history" not in config:
            config["history"] = "shallow"
        if "historyTargetId" in patch:
            targets = patch["historyTargetId"]
            if targets is None:
                config.pop("target", None)
            else:
                parent = context.model.nodes[node.parent_id] if node.parent_id else node
                ids = [targets] if isinstance(targets, str) else targets
                rendered = [render_history_target(context.model, parent, context.state(t, "historyTargetId")) for t in ids]
                config["target"] = rendered[0] if len(rendered) == 1 else rendered
    else:
        if "history" in patch or "historyTargetId" in patch:
            raise context.fail("`history` and `historyTargetId` apply only to type 'history'")
        config.pop("history", None)
        if node.type == "history":
            config.pop("target", None)
    context.changed()


# --- transitions ------------------------------------------------------------------------------


def _slot_for_event(context: PatchContext, source: StateNode, event_type: str, delay: Any) -> TransitionSlot:
    if delay is not None:
        return TransitionSlot("after", _delay_key(delay))
    if event_type == "":
        return TransitionSlot("always")
    after_prefix, after_suffix = "xstate.after.", f".{source.id}"
    if event_type.startswith(after_prefix) and event_type.endswith(after_suffix):
        middle = event_type[len(after_prefix): -len(after_suffix)]
        if middle:
            return TransitionSlot("after", middle)
    if event_type == f"xstate.done.state.{source.id}":
        return TransitionSlot("onDone")
    for prefix, kind in (
        ("xstate.done.actor.", "invoke.onDone"),
        ("xstate.error.actor.", "invoke.onError"),
        ("xstate.snapshot.", "invoke.onSnapshot"),
    ):
        if event_type.startswith(prefix):
            invoke_id = event_type[len(prefix):]
            for index, invoke in enumerate(source.invoke):
                if invoke.id == invoke_id:
                    return TransitionSlot(kind, str(index))
    if event_type.startswith("xstate.after.") or event_type.startswith("xstate.done.state."):
        raise context.fail(
            f"event {event_type!r} is a delayed or done event of another state; from {source.id!r} use "
            f"xstate.after.<delay>.{source.id} or xstate.done.state.{source.id}"
        )
    return TransitionSlot("on", event_type)


def _delay_key(delay: Any) -> str:
    if isinstance(delay, float) and delay.is_integer():
        return str(int(delay))
    return str(delay)


def _render_targets(context: PatchContext, source: StateNode, value: Any) -> Any:
    ids = [value] if isinstance(value, str) else list(value)
    rendered = [render_target(context.model, source, context.state(t, "targetId")) for t in ids]
    return rendered[0] if len(rendered) == 1 else rendered


def _set_transition_fields(context: PatchContext, source: StateNode, item: dict[str, Any], patch: dict[str, Any]) -> None:
    if "targetId" in patch:
        if patch["targetId"] is None:
            item.pop("target", None)
        else:
            item["target"] = _render_targets(context, source, patch["targetId"])
    if "guard" in patch:
        if patch["guard"] is None:
            item.pop("guard", None)
        else:
            try:
                parse_guard(patch["guard"], "guard")
            except MachineDefinitionError as error:
                raise context.fail(f"invalid guard: {error}") from None
            item["guard"] = patch["guard"]
    if "actions" in patch:
        actions = _checked_actions(context, patch["actions"])
        if actions:
            item["actions"] = actions
        else:
            item.pop("actions", None)
    for name in ("reenter", "description", "meta"):
        if name in patch:
            if patch[name] is None:
                item.pop(name, None)
            else:
                item[name] = patch[name]


def _checked_actions(context: PatchContext, actions: Any) -> list[Any]:
    items = list(actions or [])
    for index, action in enumerate(items):
        try:
            parse_action(action, f"actions[{index}]")
        except MachineDefinitionError as error:
            raise context.fail(f"invalid action: {error}") from None
    return items


def _insert(context: PatchContext, group: list[dict[str, Any]], item: dict[str, Any], priority: int | None) -> None:
    if priority is not None and priority > len(group):
        raise context.fail(f"`priority` {priority} is past the end: that event has {len(group)} other transition(s)")
    group.insert(len(group) if priority is None else priority, item)


def _create_transition(context: PatchContext, patch: dict[str, Any]) -> None:
    source = context.state(patch["sourceId"], "sourceId")
    slot = _slot_for_event(context, source, patch["eventType"], patch.get("delay"))
    item: dict[str, Any] = {}
    _set_transition_fields(context, source, item, patch)
    config = context.config(source)
    group = slot_list(config, slot, create=True)
    _insert(context, group, item, patch.get("priority"))
    context.changed()


def _locate(context: PatchContext, transition_id: Any) -> tuple[StateNode, Transition, TransitionSlot, list[dict[str, Any]]]:
    if not isinstance(transition_id, str):
        raise context.fail("`transitionId` must be a transition id string")
    node, transition = context.transition(transition_id)
    config = context.config(node)
    slot = transition_slot(node, transition, config)
    return node, transition, slot, slot_list(config, slot)


def _delete_transition(context: PatchContext, patch: dict[str, Any]) -> None:
    node, transition, _, group = _locate(context, patch["transitionId"])
    del group[transition.index]
    _prune_empty(context.config(node))
    context.changed()


def _update_transition(context: PatchContext, patch: dict[str, Any]) -> None:
    node, transition, slot, group = _locate(context, patch["transitionId"])
    item = group[transition.index]
    source = context.state(patch["sourceId"], "sourceId") if "sourceId" in patch else node
    if source.id != node.id and "targetId" not in patch and transition.targets:
        # Keep pointing at the same states from the new source.
        resolver = Resolver(context.model)
        resolved = [resolve_or_none(resolver, node, t) for t in transition.targets]
        if None not in resolved:
            patch = {**patch, "targetId": [r.id for r in resolved if r is not None]}
    if "eventType" in patch:
        new_slot = _slot_for_event(context, source, patch["eventType"], None)
    elif source.id != node.id:
        new_slot = _moved_slot(context, slot, node, source)
    else:
        new_slot = slot
    _set_transition_fields(context, source, item, patch)
    priority = patch.get("priority")
    if new_slot == slot and source.id == node.id:
        if priority is not None and priority != transition.index:
            del group[transition.index]
            _insert(context, group, item, priority)
    else:
        del group[transition.index]
        target_group = slot_list(context.config(source), new_slot, create=True)
        _insert(context, target_group, item, priority)
    _prune_empty(context.draft)
    context.changed()


def _moved_slot(context: PatchContext, slot: TransitionSlot, node: StateNode, source: StateNode) -> TransitionSlot:
    if not slot.kind.startswith("invoke."):
        return slot
    invoke_id = node.invoke[int(slot.key)].id
    for index, invoke in enumerate(source.invoke):
        if invoke.id == invoke_id:
            return TransitionSlot(slot.kind, str(index))
    raise context.fail(f"{source.id!r} has no invoke {invoke_id!r} to carry this {slot.kind} transition")


# --- state data -------------------------------------------------------------------------------


def _set_actions(key: str) -> Callable[[PatchContext, dict[str, Any]], None]:
    def handler(context: PatchContext, patch: dict[str, Any]) -> None:
        node = context.state(patch["stateId"])
        actions = _checked_actions(context, patch["actions"])
        config = context.config(node)
        if actions:
            config[key] = actions
        else:
            config.pop(key, None)
        context.changed()

    return handler


def _set_state_value(key: str, field: str) -> Callable[[PatchContext, dict[str, Any]], None]:
    def handler(context: PatchContext, patch: dict[str, Any]) -> None:
        node = context.state(patch["stateId"])
        config = context.config(node)
        value = patch[field]
        if value is None or (key == "tags" and value == []):
            config.pop(key, None)
        else:
            config[key] = value
        context.changed()

    return handler


def _set_context(context: PatchContext, patch: dict[str, Any]) -> None:
    if patch["context"] is None:
        context.draft.pop("context", None)
    else:
        context.draft["context"] = patch["context"]
    context.changed()


def _set_schema(name: str) -> Callable[[PatchContext, dict[str, Any]], None]:
    def handler(context: PatchContext, patch: dict[str, Any]) -> None:
        schemas = context.draft.get("schemas")
        if schemas is not None and not isinstance(schemas, dict):
            raise context.fail("the machine's `schemas` is not an object")
        schemas = dict(schemas or {})
        if patch["schema"] is None:
            schemas.pop(name, None)
        else:
            schemas[name] = patch["schema"]
        if schemas:
            context.draft["schemas"] = schemas
        else:
            context.draft.pop("schemas", None)
        context.changed()

    return handler


# --- invokes ----------------------------------------------------------------------------------


def _invoke_index(context: PatchContext, node: StateNode, invoke_id: str) -> int:
    for index, invoke in enumerate(node.invoke):
        if invoke.id == invoke_id:
            return index
    known = {invoke.id for invoke in node.invoke}
    hint = did_you_mean(invoke_id, known) or (f" (invokes: {', '.join(sorted(known))})" if known else " (it has none)")
    raise context.fail(f"{node.id!r} has no invoke {invoke_id!r}{hint}")


def _set_invoke_fields(item: dict[str, Any], patch: dict[str, Any]) -> None:
    for name in ("src", "id", "input", "systemId"):
        if name in patch:
            if patch[name] is None:
                item.pop(name, None)
            else:
                item[name] = patch[name]


def _create_invoke(context: PatchContext, patch: dict[str, Any]) -> None:
    node = context.state(patch["stateId"])
    if patch.get("id") is not None and any(invoke.id == patch["id"] for invoke in node.invoke):
        raise context.fail(f"{node.id!r} already invokes an actor with id {patch['id']!r}")
    item: dict[str, Any] = {}
    _set_invoke_fields(item, patch)
    config = context.config(node)
    invokes = config.setdefault("invoke", [])
    index = patch.get("index")
    invokes.insert(len(invokes) if index is None else min(index, len(invokes)), item)
    context.changed()


def _update_invoke(context: PatchContext, patch: dict[str, Any]) -> None:
    node = context.state(patch["stateId"])
    index = _invoke_index(context, node, patch["invokeId"])
    invokes = context.config(node)["invoke"]
    item = invokes[index]
    _set_invoke_fields(item, patch)
    if "index" in patch:
        invokes.pop(index)
        invokes.insert(min(patch["index"], len(invokes)), item)
    context.changed()


def _delete_invoke(context: PatchContext, patch: dict[str, Any]) -> None:
    node = context.state(patch["stateId"])
    index = _invoke_index(context, node, patch["invokeId"])
    config = context.config(node)
    del config["invoke"][index]
    _prune_empty(config)
    context.changed()


_HANDLERS: dict[str, Callable[[PatchContext, dict[str, Any]], None]] = {
    "createState": _create_state,
    "deleteState": _delete_state,
    "renameState": _rename_state,
    "setStateId": _set_state_id,
    "moveState": _move_state,
    "setInitialState": _set_initial,
    "setStateType": _set_type,
    "createTransition": _create_transition,
    "deleteTransition": _delete_transition,
    "updateTransition": _update_transition,
    "setEntryActions": _set_actions("entry"),
    "setExitActions": _set_actions("exit"),
    "createInvoke": _create_invoke,
    "updateInvoke": _update_invoke,
    "deleteInvoke": _delete_invoke,
    "setContext": _set_context,
    "setTags": _set_state_value("tags", "tags"),
    "setMeta": _set_state_value("meta", "meta"),
    "setDescription": _set_state_value("description", "description"),
    "setOutput": _set_state_value("output", "output"),
    **{name: _set_schema(key) for name, key in SCHEMA_OPERATIONS.items()},
}


def comparable_config(model: MachineModel) -> Draft:
    """The machine with the documented normalisations applied, for comparing patch results.

    Targets become `#<resolved id>` (the written form of a target is the applier's choice),
    `on` and `after` groups are sorted by key (their order never changes which transition is
    selected), a state's type is its effective type (written or inferred), `history: true` is
    `"shallow"`, and `context: null` is no context. Children are
    compared as a set except in parallel states, where their document order is semantic.
    """
    draft = draft_from_model(model)
    resolver = Resolver(model)
    for node, _, item in iter_transition_dicts(draft, model):
        targets = _target_list(item.get("target"))
        if targets:
            resolved = [resolve_or_none(resolver, node, t) for t in targets]
            item["target"] = [f"#{r.id}" if r is not None else t for r, t in zip(resolved, targets, strict=True)]
    for node in model.root.walk():
        config = state_config(draft, node)
        for key in ("on", "after"):
            if isinstance(config.get(key), dict):
                config[key] = dict(sorted(config[key].items()))
        config["type"] = node.type
        if config.get("history") is True:
            config["history"] = "shallow"
        if node.type == "history" and node.target and node.parent_id is not None:
            parent = model.nodes[node.parent_id]
            resolved = [resolve_history_target(resolver, parent, t) for t in node.target]
            config["target"] = [f"#{r.id}" if r is not None else t for r, t in zip(resolved, node.target, strict=True)]
    # Dicts compare without order; the regions' document order is semantic, so keep it
    # (bottom-up, so that paths to deeper states still go through dicts).
    for node in reversed(list(model.root.walk())):
        config = state_config(draft, node)
        if node.type == "parallel" and "states" in config:
            config["states"] = list(config["states"].items())
    if "context" in draft and draft["context"] is None:
        del draft["context"]
    return draft
