"""Read an XState v5 config (a dict, as from JSON or YAML) into the canonical model.

Parsing checks shapes (a `states` that is not an object, an action that is a number) and
raises `MachineDefinitionError` with a config path. It does not check meaning (unknown
targets, missing initial states): the validator reports those, and the engine refuses them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, cast

from statekit.budget import check_budget
from statekit.errors import MachineDefinitionError
from statekit.model.core import (
    BUILTIN_ACTIONS,
    BUILTIN_GUARDS,
    Action,
    EnqueueBranch,
    Guard,
    Invoke,
    MachineModel,
    StateNode,
    StateType,
    Transition,
    TransitionKind,
)
from statekit.model.inline import is_inline
from statekit.model.jsorder import js_items, js_keys
from statekit.model.unresolved import unresolved_marker

DEFAULT_MACHINE_ID = "(machine)"

_STATE_KEYS = frozenset(
    {
        "id", "type", "initial", "states", "on", "always", "after", "onDone", "invoke",
        "entry", "exit", "tags", "meta", "description", "output", "history", "target",
    }
)
_ROOT_ONLY_KEYS = frozenset({"context"})
_ROOT_KEYS = _STATE_KEYS | _ROOT_ONLY_KEYS
_TRANSITION_KEYS = frozenset({"target", "guard", "actions", "reenter", "description", "meta"})
_INVOKE_KEYS = frozenset({"id", "src", "input", "systemId", "onDone", "onError", "onSnapshot"})
_STATE_TYPES = frozenset({"atomic", "compound", "parallel", "final", "history"})

MAX_DEPTH = 200


def unwrap_document(document: Any) -> Any:
    """Accept a config or `{"machine": config}`."""
    if isinstance(document, Mapping) and set(document) == {"machine"} and isinstance(document["machine"], Mapping):
        return document["machine"]
    return document


def parse_machine(config: Any) -> MachineModel:
    """Turn an XState config into a `MachineModel`."""
    config = unwrap_document(config)
    if not isinstance(config, Mapping):
        raise MachineDefinitionError("a machine config must be an object", "")
    machine_id = config.get("id")
    if machine_id is not None and not isinstance(machine_id, str):
        raise MachineDefinitionError("`id` must be a string", "id")
    root_key = machine_id or DEFAULT_MACHINE_ID
    root = _parse_state(config, key=root_key, path=(), parent_id=None, machine_id=root_key, where="", depth=0)
    # A root `target` means nothing (the root is no history state): kept so validation can say
    # that the config is a transition, not a machine.
    extra = {k: v for k, v in config.items() if (k not in _STATE_KEYS or k == "target") and k not in _ROOT_ONLY_KEYS}
    return MachineModel(root=root, context=config.get("context"), has_context="context" in config, extra=extra)


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _parse_state(
    config: Any, *, key: str, path: tuple[str, ...], parent_id: str | None, machine_id: str, where: str, depth: int
) -> StateNode:
    check_budget()  # per state: parsing a huge machine stops with the call
    if depth > MAX_DEPTH:
        raise MachineDefinitionError(f"states nest deeper than {MAX_DEPTH} levels", where)
    if config is None:
        config = {}
    if not isinstance(config, Mapping):
        raise MachineDefinitionError("a state config must be an object", where)
    explicit_id = config.get("id")
    if explicit_id is not None and not isinstance(explicit_id, str):
        raise MachineDefinitionError("`id` must be a string", _join(where, "id"))
    node_id = explicit_id or ".".join((machine_id, *path))

    states_config = config.get("states")
    if states_config is not None and not isinstance(states_config, Mapping):
        raise MachineDefinitionError("`states` must be an object", _join(where, "states"))
    children = tuple(
        _parse_state(
            child_config,
            key=child_key,
            path=(*path, child_key),
            parent_id=node_id,
            machine_id=machine_id,
            where=_join(_join(where, "states"), child_key),
            depth=depth + 1,
        )
        for child_key, child_config in js_items(states_config or {})
    )

    given_type = config.get("type")
    if given_type is not None and (not isinstance(given_type, str) or given_type not in _STATE_TYPES):
        raise MachineDefinitionError(
            f"unknown state type {given_type!r}; expected one of {', '.join(sorted(_STATE_TYPES))}", _join(where, "type")
        )
    history_given = config.get("history")
    state_type: StateType = cast(
        StateType, given_type or ("compound" if children else "history" if history_given else "atomic")
    )
    history: Any = None
    if state_type == "history":
        history = "shallow" if history_given in (True, None, "shallow") else history_given
        if history not in ("shallow", "deep"):
            raise MachineDefinitionError("`history` must be 'shallow', 'deep' or true", _join(where, "history"))

    initial = config.get("initial")
    initial_actions: tuple[Action, ...] = ()
    if isinstance(initial, Mapping):  # the `{target, actions}` form
        initial_actions = _parse_actions(initial.get("actions"), _join(where, "initial.actions"))
        initial = initial.get("target")
    if initial is not None and not isinstance(initial, str):
        raise MachineDefinitionError("`initial` must be a string", _join(where, "initial"))

    transitions = _parse_transitions(config, node_id, where)
    invoke_config = config.get("invoke")
    invokes = () if invoke_config is None else tuple(
        _parse_invoke(item, node_id, index, _join(where, f"invoke[{index}]"))
        for index, item in enumerate(_to_list(invoke_config))
    )
    invoke_transitions: list[Transition] = []
    for index, item in enumerate(_to_list(invoke_config)):
        invoke_where = _join(where, f"invoke[{index}]")
        for field_name, kind, prefix in (
            ("onDone", "invoke.onDone", "xstate.done.actor."),
            ("onError", "invoke.onError", "xstate.error.actor."),
            ("onSnapshot", "invoke.onSnapshot", "xstate.snapshot."),
        ):
            if item.get(field_name) is not None:
                invoke_transitions.extend(
                    _parse_transition_list(
                        item[field_name], node_id, cast(TransitionKind, kind), prefix + invokes[index].id,
                        _join(invoke_where, field_name), invoke_index=index,
                    )
                )

    tags_config = config.get("tags")
    tags = tuple(_to_list(tags_config))
    if not all(isinstance(tag, str) for tag in tags):
        raise MachineDefinitionError("tags must be strings", _join(where, "tags"))
    description = config.get("description")
    if description is not None and not isinstance(description, str):
        raise MachineDefinitionError("`description` must be a string", _join(where, "description"))

    history_target = config.get("target") if state_type == "history" else None
    target: tuple[str, ...] | None = None
    if history_target is not None and history_target != "":
        target = tuple(_to_list(history_target))
        if not all(isinstance(t, str) for t in target):
            raise MachineDefinitionError("a history target must be a string or a list of strings", _join(where, "target"))

    known = _ROOT_KEYS if parent_id is None else _STATE_KEYS
    extra = {k: v for k, v in config.items() if k not in known}
    if parent_id is not None and "target" in config and state_type != "history":
        extra["target"] = config["target"]
    return StateNode(
        key=key,
        id=node_id,
        path=path,
        type=state_type,
        parent_id=parent_id,
        explicit_id=explicit_id,
        type_given=given_type is not None,
        initial=initial,
        initial_actions=initial_actions,
        children=children,
        transitions=transitions + tuple(invoke_transitions) if invoke_transitions else transitions,
        entry=_parse_state_actions(config, "entry", where),
        exit=_parse_state_actions(config, "exit", where),
        invoke=invokes,
        tags=tags,
        meta=config.get("meta"),
        description=description,
        output=config.get("output"),
        has_output="output" in config,
        history=history,
        history_given=history_given,
        target=target,
        extra=extra if parent_id is not None else {},
    )


def _parse_state_actions(config: Mapping[str, Any], key: str, where: str) -> tuple[Action, ...]:
    """A state's `entry` or `exit` (most states have neither: nothing to read or name)."""
    value = config.get(key)
    return () if value is None else _parse_actions(value, _join(where, key))


def _to_list(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return list(value)
    return [value]


def _parse_transitions(config: Mapping[str, Any], node_id: str, where: str) -> tuple[Transition, ...]:
    result: list[Transition] = []
    on = config.get("on")
    if on is not None:
        if not isinstance(on, Mapping):
            raise MachineDefinitionError("`on` must be an object of event descriptors", _join(where, "on"))
        on_where = _join(where, "on")
        for descriptor, value in js_items(on):
            result.extend(_parse_transition_list(value, node_id, "on", descriptor, _join(on_where, descriptor)))
    if config.get("always") is not None:
        result.extend(_parse_transition_list(config["always"], node_id, "always", "", _join(where, "always")))
    after = config.get("after")
    if after is not None:
        if not isinstance(after, Mapping):
            raise MachineDefinitionError("`after` must be an object of delays", _join(where, "after"))
        for delay_key in js_keys(after):
            delay = _delay_value(delay_key)
            result.extend(
                _parse_transition_list(
                    after[delay_key], node_id, "after", after_event_type(delay, node_id),
                    _join(_join(where, "after"), delay_key), delay=delay, delay_key=str(delay_key),
                )
            )
    if config.get("onDone") is not None:
        result.extend(
            _parse_transition_list(config["onDone"], node_id, "onDone", f"xstate.done.state.{node_id}", _join(where, "onDone"))
        )
    return tuple(result)


_JS_NUMBER = re.compile(r"^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$")


def _delay_value(key: Any) -> int | float | str:
    """XState's `Number.isNaN(+delay) ? delay : +delay`, for the delay keys JSON can hold."""
    if isinstance(key, int | float):
        return key
    text = str(key)
    if text.strip() == "":
        return 0
    if not _JS_NUMBER.match(text):
        return text
    number = float(text)
    return int(number) if number.is_integer() else number


def after_event_type(delay: int | float | str, node_id: str) -> str:
    """`xstate.after.<delay>.<state id>`, with the delay printed as JavaScript prints it."""
    if isinstance(delay, float):
        rendered = str(int(delay)) if delay.is_integer() else repr(delay)
    else:
        rendered = str(delay)
    return f"xstate.after.{rendered}.{node_id}"


def _parse_transition_list(
    value: Any,
    node_id: str,
    kind: TransitionKind,
    descriptor: str,
    where: str,
    *,
    delay: int | float | str | None = None,
    delay_key: str | None = None,
    invoke_index: int | None = None,
) -> list[Transition]:
    items = value if isinstance(value, list | tuple) else [value]
    if kind == "after" and isinstance(value, list | tuple):
        # XState spreads each item of an `after` array into an object: a string there has no
        # `target` (`{0: "b"}`), so it is a targetless transition, unlike in `on` or `always`.
        items = [{} if isinstance(item, str) else item for item in items]
    return [
        _parse_transition(item, node_id, kind, descriptor, f"{where}[{index}]" if len(items) > 1 else where,
                          index=index, delay=delay, delay_key=delay_key, invoke_index=invoke_index)
        for index, item in enumerate(items)
    ]


def _parse_transition(
    item: Any,
    node_id: str,
    kind: TransitionKind,
    descriptor: str,
    where: str,
    *,
    index: int,
    delay: int | float | str | None,
    invoke_index: int | None,
    delay_key: str | None = None,
) -> Transition:
    if item is None or isinstance(item, str):
        # `{target: item}` and nothing else: every other field keeps its default.
        return Transition(source_id=node_id, kind=kind, event=descriptor, targets=(item,) if item else None,
                          delay=delay, delay_key=delay_key, invoke_index=invoke_index, index=index)
    if isinstance(item, list | tuple):
        # XState spreads a nested array as an object of index keys: no target, guard or
        # actions, so it is a targetless transition that does nothing.
        item = {}
    if not isinstance(item, Mapping):
        raise MachineDefinitionError("a transition must be a target string or an object", where)
    unread = unresolved_marker(item) if len(item) == 1 else None
    if unread is not None and set(item) <= {"$ref", "$expr"}:
        # `on: { GO: NEXT }` with NEXT imported: read as an object it would be a targetless
        # transition, a silent wrong answer; XState goes where NEXT says.
        raise MachineDefinitionError(f"the transition is `{unread}`, which statekit cannot evaluate without "
                                     "running the source (an import, a parameter or a call)", where)
    raw_target = item.get("target")
    targets: tuple[str, ...] | None
    if raw_target is None or raw_target == "":
        targets = None
    else:
        targets = tuple(_to_list(raw_target))
        if not all(isinstance(t, str) for t in targets):
            raise MachineDefinitionError("a target must be a string or a list of strings", _join(where, "target"))
    reenter = item.get("reenter")
    if reenter is not None and not isinstance(reenter, bool):
        raise MachineDefinitionError("`reenter` must be a boolean", _join(where, "reenter"))
    description = item.get("description")
    guard_config = item.get("guard")
    return Transition(
        source_id=node_id,
        kind=kind,
        event=descriptor,
        targets=targets,
        guard=parse_guard(guard_config, _join(where, "guard")) if guard_config is not None else None,
        actions=_parse_actions(item.get("actions"), _join(where, "actions")),
        reenter=bool(reenter),
        reenter_given=reenter is not None,
        description=description if isinstance(description, str) else None,
        meta=item.get("meta"),
        delay=delay,
        delay_key=delay_key,
        invoke_index=invoke_index,
        index=index,
        extra={k: v for k, v in item.items() if k not in _TRANSITION_KEYS},
    )


def parse_guard(config: Any, where: str) -> Guard:
    """Read a guard: a name, `{type, params}`, or a built-in combinator object."""
    if isinstance(config, str):
        # A built-in's bare name has none of its operands: read it as the object, which says
        # what is missing (a diagram label can hold `xstate.not`; the model must not).
        return parse_guard({"type": config}, where) if config in BUILTIN_GUARDS else Guard(type=config)
    if callable(config):
        return Guard(type=getattr(config, "__name__", "(anonymous)"), code=f"<python {getattr(config, '__qualname__', '?')}>")
    if not isinstance(config, Mapping) or not isinstance(config.get("type"), str):
        raise MachineDefinitionError("a guard must be a name or an object with a string `type`", where)
    guard_type = config["type"]
    if guard_type in ("xstate.and", "xstate.or"):
        operands = config.get("guards")
        if not isinstance(operands, list | tuple):
            raise MachineDefinitionError(f"`{guard_type}` needs a `guards` list", _join(where, "guards"))
        return Guard(type=guard_type, guards=tuple(parse_guard(g, f"{where}.guards[{i}]") for i, g in enumerate(operands)))
    if guard_type == "xstate.not":
        if "guard" not in config:
            raise MachineDefinitionError("`xstate.not` needs a `guard`", where)
        return Guard(type=guard_type, guards=(parse_guard(config["guard"], _join(where, "guard")),))
    if guard_type == "xstate.stateIn":
        state = config.get("state")
        if not isinstance(state, str | Mapping):
            raise MachineDefinitionError("`xstate.stateIn` needs a `state` (a #id, a path or a state value)", where)
        return Guard(type=guard_type, state=state)
    code = config.get("code")
    return Guard(
        type=guard_type,
        params=config.get("params"),
        has_params="params" in config,
        code=code if isinstance(code, str) else None,
    )


def _parse_actions(config: Any, where: str) -> tuple[Action, ...]:
    items = _to_list(config)
    return tuple(
        parse_action(item, f"{where}[{index}]" if isinstance(config, list | tuple) else where)
        for index, item in enumerate(items)
    )


def parse_action(config: Any, where: str) -> Action:
    """Read an action: a name, `{type, params}`, or a built-in action object."""
    if isinstance(config, str):
        # As for guards: `"xstate.assign"` alone is an assign without its assignment.
        return parse_action({"type": config}, where) if config in BUILTIN_ACTIONS else Action(type=config)
    if not isinstance(config, Mapping) or not isinstance(config.get("type"), str):
        raise MachineDefinitionError("an action must be a name or an object with a string `type`", where)
    action_type = config["type"]
    if action_type in BUILTIN_ACTIONS:
        fields = {k: v for k, v in config.items() if k != "type"}
        enqueued: tuple[Action | EnqueueBranch, ...] = ()
        if action_type == "xstate.enqueueActions":
            enqueued = _parse_enqueued(fields.pop("actions", []), _join(where, "actions"))
        _check_builtin_fields(action_type, fields, where)
        return Action(type=action_type, fields=fields, enqueued=enqueued)
    code = config.get("code")
    return Action(
        type=action_type,
        params=config.get("params"),
        has_params="params" in config,
        code=code if isinstance(code, str) else None,
    )


def _is_code_or(value: Any, kind: type, *, missing: bool = False) -> bool:
    """Whether a built-in action's field is a `kind`, code (resolved when the action runs), or
    (with `missing`) absent; an unevaluated expression counts as code (refused when it runs)."""
    if value is None:
        return missing
    return isinstance(value, kind) or callable(value) or is_inline(value) or unresolved_marker(value) is not None


def _check_builtin_fields(action_type: str, fields: Mapping[str, Any], where: str) -> None:
    if action_type in ("xstate.raise", "xstate.sendTo", "xstate.sendParent", "xstate.emit"):
        event = fields.get("event")
        # A string is refused by XState when the action runs, not when the machine is made.
        if not (isinstance(event, Mapping) and isinstance(event.get("type"), str)) and not callable(event) \
                and not is_inline(event) and not (isinstance(event, str) and action_type != "xstate.emit"):
            raise MachineDefinitionError(f"`{action_type}` needs an `event` object with a string `type`", _join(where, "event"))
    to = fields.get("to")
    is_reference = isinstance(to, Mapping) and to.get("xstate$$type") == 1 and isinstance(to.get("id"), str)
    if action_type == "xstate.sendTo" and not is_reference and not _is_code_or(to, str, missing=True):
        # An actor given as code (`({context}) => context.ref`) is resolved when the action runs;
        # a missing one (`forwardTo(undefined)`) is refused there, as XState does; an actor
        # reference (what an enqueueActions body hands `enqueue.sendTo`) is the target itself.
        raise MachineDefinitionError("`xstate.sendTo` needs `to`, the id of an actor", _join(where, "to"))
    if action_type == "xstate.assign" and not (isinstance(fields.get("assignment"), Mapping) or callable(fields.get("assignment"))):
        raise MachineDefinitionError("`xstate.assign` needs an `assignment` object", _join(where, "assignment"))
    if action_type == "xstate.cancel" and not _is_code_or(fields.get("sendId"), str):
        raise MachineDefinitionError("`xstate.cancel` needs a `sendId` string", _join(where, "sendId"))
    if action_type == "xstate.spawnChild" and not (isinstance(fields.get("src"), str)
                                                   or unresolved_marker(fields.get("src")) is not None):
        # Inline logic (`spawnChild(fromPromise(...))`) is read as an expression; the engine
        # keeps the kinds it never has to run and refuses any other.
        raise MachineDefinitionError("`xstate.spawnChild` needs a `src` string", _join(where, "src"))
    if action_type == "xstate.stopChild" and not isinstance(fields.get("actorRef"), str) \
            and not is_inline(fields.get("actorRef")):
        raise MachineDefinitionError("`xstate.stopChild` needs an `actorRef` (an actor id)", _join(where, "actorRef"))
    delay = fields.get("delay")
    if delay is not None and not isinstance(delay, int | float | str) and not is_inline(delay):
        raise MachineDefinitionError("a delay must be a number of milliseconds or a delay name", _join(where, "delay"))


def _parse_enqueued(items: Any, where: str) -> tuple[Action | EnqueueBranch, ...]:
    result: list[Action | EnqueueBranch] = []
    for index, item in enumerate(_to_list(items)):
        item_where = f"{where}[{index}]"
        if isinstance(item, Mapping) and "if" in item and "type" not in item:
            result.append(
                EnqueueBranch(
                    guard=parse_guard(item["if"], _join(item_where, "if")),
                    then=_parse_enqueued(item.get("then", []), _join(item_where, "then")),
                    otherwise=_parse_enqueued(item.get("else", []), _join(item_where, "else")),
                )
            )
        else:
            result.append(parse_action(item, item_where))
    return tuple(result)


def _parse_invoke(item: Any, node_id: str, index: int, where: str) -> Invoke:
    if not isinstance(item, Mapping):
        raise MachineDefinitionError("an invoke must be an object with `src`", where)
    src = item.get("src")
    if not isinstance(src, str):
        raise MachineDefinitionError("`invoke.src` must be the name of an actor", _join(where, "src"))
    invoke_id = item.get("id")
    if invoke_id is not None and not isinstance(invoke_id, str):
        raise MachineDefinitionError("`invoke.id` must be a string", _join(where, "id"))
    system_id = item.get("systemId")
    return Invoke(
        src=src,
        id=invoke_id if invoke_id is not None else f"{index}.{node_id}",
        id_given=invoke_id is not None,
        input=item.get("input"),
        has_input="input" in item,
        system_id=system_id if isinstance(system_id, str) else None,
        extra={k: v for k, v in item.items() if k not in _INVOKE_KEYS},
    )
