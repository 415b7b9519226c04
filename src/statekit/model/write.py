"""Write the canonical model back to an XState v5 config (plain data, compact forms)."""

from __future__ import annotations

from typing import Any

from statekit.budget import check_budget
from statekit.model.core import (
    Action,
    EnqueueBranch,
    Guard,
    Invoke,
    MachineModel,
    StateNode,
    Transition,
)
from statekit.model.parse import DEFAULT_MACHINE_ID


def machine_to_config(model: MachineModel) -> dict[str, Any]:
    """The XState config of `model`; `parse_machine(machine_to_config(m)) == m`."""
    config: dict[str, Any] = {}
    if model.root.explicit_id is not None and model.root.key != DEFAULT_MACHINE_ID:
        config["id"] = model.root.explicit_id
    if model.has_context:
        config["context"] = model.context
    config.update(_state_to_config(model.root))
    config.update(model.extra)
    return config


def invoke_config(invoke: Invoke, *, with_extra: bool = True) -> dict[str, Any]:
    """An invoke's own config: `src`, then `id`, `input` and `systemId` where given, then (with
    `with_extra`) the keys the model keeps as written. Its transitions (`onDone`, ...) belong to
    the state node and are not included."""
    config: dict[str, Any] = {"src": invoke.src}
    if invoke.id_given:
        config["id"] = invoke.id
    if invoke.has_input:
        config["input"] = invoke.input
    if invoke.system_id is not None:
        config["systemId"] = invoke.system_id
    if with_extra:
        config.update(invoke.extra)
    return config


def _state_to_config(node: StateNode) -> dict[str, Any]:
    check_budget()  # per state: writing a huge machine stops with the call
    config: dict[str, Any] = {}
    if node.parent_id is not None and node.explicit_id is not None:
        config["id"] = node.explicit_id
    if node.type_given:
        config["type"] = node.type
    if node.history_given is not None:
        config["history"] = node.history_given
    if node.target is not None:
        config["target"] = node.target[0] if len(node.target) == 1 else list(node.target)
    if node.initial_actions:
        config["initial"] = {"target": node.initial, "actions": _actions_to_config(node.initial_actions)}
    elif node.initial is not None:
        config["initial"] = node.initial
    if node.description is not None:
        config["description"] = node.description
    if node.tags:
        config["tags"] = list(node.tags)
    if node.meta is not None:
        config["meta"] = node.meta
    if node.entry:
        config["entry"] = _actions_to_config(node.entry)
    if node.exit:
        config["exit"] = _actions_to_config(node.exit)
    if node.invoke:
        invokes = []
        for index, invoke in enumerate(node.invoke):
            item = invoke_config(invoke, with_extra=False)  # the written keys follow the transitions
            for kind, key in (("invoke.onDone", "onDone"), ("invoke.onError", "onError"), ("invoke.onSnapshot", "onSnapshot")):
                group = [t for t in node.transitions if t.kind == kind and t.invoke_index == index]
                if group:
                    item[key] = _transition_group(group)
            item.update(invoke.extra)
            invokes.append(item)
        config["invoke"] = invokes[0] if len(invokes) == 1 else invokes
    on: dict[str, Any] = {}
    after: dict[str, Any] = {}
    for descriptor, group in _groups(node.transitions, "on"):
        on[descriptor] = _transition_group(group)
    for _, group in _groups(node.transitions, "after"):
        after[group[0].delay_key or _delay_key(group[0].delay)] = _transition_group(group, in_after=True)
    if on:
        config["on"] = on
    always = [t for t in node.transitions if t.kind == "always"]
    if always:
        config["always"] = _transition_group(always)
    if after:
        config["after"] = after
    done = [t for t in node.transitions if t.kind == "onDone"]
    if done:
        config["onDone"] = _transition_group(done)
    if node.has_output:
        config["output"] = node.output
    if node.children:
        config["states"] = {child.key: _state_to_config(child) for child in node.children}
    config.update(node.extra)
    return config


def _delay_key(delay: Any) -> str:
    if isinstance(delay, float) and delay.is_integer():
        return str(int(delay))
    return str(delay)


def _groups(transitions: tuple[Transition, ...], kind: str) -> list[tuple[str, list[Transition]]]:
    grouped: dict[str, list[Transition]] = {}
    for transition in transitions:
        if transition.kind == kind:
            grouped.setdefault(transition.event, []).append(transition)
    return list(grouped.items())


def _transition_group(group: list[Transition], in_after: bool = False) -> Any:
    items = [transition_to_config(t) for t in group]
    if len(items) == 1:
        return items[0]
    if in_after:
        # XState reads a lone `after` string as a target but spreads each item of an `after`
        # array as an object: a string there becomes a targetless transition.
        items = [{"target": item} if isinstance(item, str) else item for item in items]
    return items


def transition_to_config(transition: Transition) -> Any:
    """One transition in its most compact XState form."""
    item: dict[str, Any] = {}
    if transition.targets is not None:
        item["target"] = transition.targets[0] if len(transition.targets) == 1 else list(transition.targets)
    if transition.guard is not None:
        item["guard"] = guard_to_config(transition.guard)
    if transition.actions:
        item["actions"] = _actions_to_config(transition.actions)
    if transition.reenter_given:
        item["reenter"] = transition.reenter
    if transition.description is not None:
        item["description"] = transition.description
    if transition.meta is not None:
        item["meta"] = transition.meta
    item.update(transition.extra)
    if set(item) == {"target"} and isinstance(item["target"], str):
        return item["target"]
    return item


def guard_to_config(guard: Guard) -> Any:
    """A guard as config data."""
    if guard.type in ("xstate.and", "xstate.or"):
        return {"type": guard.type, "guards": [guard_to_config(g) for g in guard.guards]}
    if guard.type == "xstate.not":
        return {"type": guard.type, "guard": guard_to_config(guard.guards[0])}
    if guard.type == "xstate.stateIn":
        return {"type": guard.type, "state": guard.state}
    if not guard.has_params and guard.code is None:
        return guard.type
    config: dict[str, Any] = {"type": guard.type}
    if guard.has_params:
        config["params"] = guard.params
    if guard.code is not None:
        config["code"] = guard.code
    return config


def _actions_to_config(actions: tuple[Action, ...]) -> Any:
    items = [action_to_config(a) for a in actions]
    return items[0] if len(items) == 1 else items


def action_to_config(action: Action) -> Any:
    """An action as config data."""
    if action.is_builtin:
        config: dict[str, Any] = {"type": action.type, **action.fields}
        if action.type == "xstate.enqueueActions":
            config["actions"] = [_enqueued_to_config(item) for item in action.enqueued]
        return config
    if not action.has_params and action.code is None:
        return action.type
    config = {"type": action.type}
    if action.has_params:
        config["params"] = action.params
    if action.code is not None:
        config["code"] = action.code
    return config


def _enqueued_to_config(item: Action | EnqueueBranch) -> Any:
    if isinstance(item, Action):
        return action_to_config(item)
    branch: dict[str, Any] = {"if": guard_to_config(item.guard), "then": [_enqueued_to_config(a) for a in item.then]}
    if item.otherwise:
        branch["else"] = [_enqueued_to_config(a) for a in item.otherwise]
    return branch
