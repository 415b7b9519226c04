"""What a conversion does with the machine's named guards and actions (`convert_machine`).

A target format holds a named guard or action only as its name. XState source may implement it
beside the config (`setup({...})`), and an SCXML interpreter evaluates a `cond` and runs a
`<script>` as ECMAScript, where a bare name is a ReferenceError. So, writing SCXML, a source guard
whose code stands alone (no module names) is inlined into its `cond` as an ECMAScript call on the
document's data (`(code)({context: {...}, event}, params)`); every other named guard or action
gets a warning saying what will not run. Writing another format, implementations the source
defines and the target cannot carry are named too.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from statekit.analysis.implemented import ImplementedMachine
from statekit.analysis.validate import transition_path
from statekit.formats import FormatWarning, warning
from statekit.model import machine_to_config, parse_machine
from statekit.model.core import Action, EnqueueBranch, MachineModel, StateNode

_IDENTIFIER_KEY = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$"


def prepare_for(implemented: ImplementedMachine, to_format: str) -> tuple[MachineModel, list[FormatWarning]]:
    """The model to write in `to_format` and the warnings about implementations it loses."""
    model = implemented.model
    notes: list[FormatWarning] = []
    inlined: set[str] = set()
    if to_format == "scxml":
        model, inlined = _inline_guards(implemented)
    guards, actions = _named_uses(model)
    source_guards = implemented.implemented_names("guards")
    source_actions = implemented.implemented_names("actions")
    running = to_format == "scxml"
    for name, where in guards.items():
        if name in inlined:
            continue
        if name in source_guards:
            notes.append(warning("implementation_not_carried", f"guard {name!r} is implemented in the source "
                                 f"(setup or createMachine's second argument), but {to_format} keeps only its name"
                                 + ("; its code reads names outside it or context that is not data, so it was not "
                                    "inlined: the cond is a ReferenceError in an SCXML interpreter" if running else ""),
                                 where))
        elif running:
            notes.append(warning("guard_not_implemented", f"guard {name!r} has no implementation: the SCXML cond "
                                 f"`{name}` is a ReferenceError in an SCXML interpreter unless its datamodel defines "
                                 "it", where))
    for name, where in actions.items():
        if name in source_actions:
            notes.append(warning("implementation_not_carried", f"action {name!r} is implemented in the source, but "
                                 f"{to_format} keeps only its name" + ("; the <script> call fails in an SCXML "
                                                                        "interpreter" if running else ""), where))
        elif running:
            notes.append(warning("action_not_implemented", f"action {name!r} has no implementation: the <script> "
                                 f"call `{name}(...)` is a ReferenceError in an SCXML interpreter unless its datamodel "
                                 "defines it", where))
    return model, notes


def _named_uses(model: MachineModel) -> tuple[dict[str, str], dict[str, str]]:
    """Each custom (named, not built-in, not inline) guard and action, with where it is first used."""
    guards: dict[str, str] = {}
    actions: dict[str, str] = {}

    def from_items(items: tuple[Action | EnqueueBranch, ...], where: str) -> None:
        for index, item in enumerate(items):
            if isinstance(item, Action):
                if not item.is_builtin and item.code is None and not item.type.startswith("scxml."):
                    actions.setdefault(item.type, f"{where}[{index}]")
                from_items(item.enqueued, f"{where}[{index}]")
            else:
                for name in item.guard.names():
                    guards.setdefault(name, f"{where}[{index}]")
                from_items(item.then, f"{where}[{index}]")
                from_items(item.otherwise, f"{where}[{index}]")

    for node in model.root.walk():
        where = _state_path(node)
        from_items(node.entry, f"{where}entry")
        from_items(node.exit, f"{where}exit")
        for transition in node.transitions:
            label = transition_path(node, transition)
            if transition.guard is not None:
                for name in transition.guard.names():
                    if not name.startswith("scxml."):
                        guards.setdefault(name, f"{label}.guard")
            from_items(transition.actions, f"{label}.actions")
    return guards, actions


def _state_path(node: StateNode) -> str:
    return "".join(f"states.{key}." for key in node.path)


def _inline_guards(implemented: ImplementedMachine) -> tuple[MachineModel, set[str]]:
    """The model with each source guard that can stand alone in ECMAScript written as an
    `scxml.cond` expression (the SCXML writer writes it as the cond), and their names."""
    codes = _standalone_guard_code(implemented)
    context = implemented.model.context
    if not codes or not isinstance(context, Mapping) or any(not _is_name(key) for key in context):
        return implemented.model, set()
    context_expr = "{" + ", ".join(f"{key}: {key}" for key in context) + "}"
    event_expr = "Object.assign({type: _event.name}, _event.data)"
    used: set[str] = set()

    def rewrite(guard: Any) -> Any:
        name = guard if isinstance(guard, str) else guard.get("type") if isinstance(guard, Mapping) else None
        if isinstance(guard, Mapping) and isinstance(guard.get("guards"), list):  # and / or / not
            return {**guard, "guards": [rewrite(item) for item in guard["guards"]]}
        if not isinstance(name, str) or name not in codes:
            return guard
        params = guard.get("params") if isinstance(guard, Mapping) else None
        used.add(name)
        arguments = f"{{context: {context_expr}, event: {event_expr}}}, {json.dumps(params, ensure_ascii=False)}"
        return {"type": "scxml.cond", "params": {"expr": f"({codes[name]})({arguments})"}}

    config = _rewrite_guards(machine_to_config(implemented.model), rewrite)
    return parse_machine(config), used


def _standalone_guard_code(implemented: ImplementedMachine) -> dict[str, str]:
    """Source guards given as code that reads nothing from the module around the machine."""
    scope = implemented.implementations.get("moduleScope")
    if isinstance(scope, Mapping) and any(scope.get(key) for key in ("constants", "unavailable", "closures", "logic")):
        return {}
    group = implemented.implementations.get("guards")
    if not isinstance(group, Mapping):
        return {}
    return {name: item["code"] for name, item in group.items()
            if isinstance(item, Mapping) and isinstance(item.get("code"), str)}


def _is_name(key: Any) -> bool:
    return isinstance(key, str) and key[:1] in _IDENTIFIER_KEY and all(c.isalnum() or c in "_$" for c in key)


def _rewrite_guards(config: Any, rewrite: Any) -> Any:
    """`config` with every `guard` value passed through `rewrite` (data subtrees left alone)."""
    if isinstance(config, list):
        return [_rewrite_guards(item, rewrite) for item in config]
    if not isinstance(config, dict):
        return config
    out: dict[str, Any] = {}
    for key, value in config.items():
        if key in ("context", "meta", "params", "input", "output", "types"):
            out[key] = value
        elif key == "guard":
            out[key] = rewrite(value)
        elif key in ("states", "on", "after") and isinstance(value, dict):
            # Keys here are state names and event types, not config keys.
            out[key] = {name: _rewrite_guards(item, rewrite) for name, item in value.items()}
        else:
            out[key] = _rewrite_guards(value, rewrite)
    return out

