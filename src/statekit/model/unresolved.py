"""Markers the XState source reader leaves where it could not evaluate a value statically.

`{"$ref": name}` is a name it cannot see the value of (an import, a parameter, a `let`);
`{"$expr": source}` an expression that is not data (a call, `new Date()`). Neither is what
XState would compute, so nothing may treat them as the value.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from statekit.model.core import Action, EnqueueBranch, Guard, MachineModel, StateNode

MARKERS = ("$ref", "$expr")
#: Beside `$expr` for a child machine written in place (`createMachine({...})`): its definition as
#: XState's `machine.definition` shows it (`statekit.extract.definition`), or why the reader could
#: not render it.
DEFINITION = "$definition"
UNRENDERED = "$unrendered"


def unresolved_marker(value: Any, depth: int = 0) -> str | None:
    """The first `$ref` / `$expr` marker inside `value`, shown as source; None when there is none."""
    if depth > 64:
        return None
    if isinstance(value, Mapping):
        if len(value) == 1:
            for marker in MARKERS:
                if isinstance(value.get(marker), str):
                    return str(value[marker])
        elif len(value) == 2 and isinstance(value.get("$expr"), str) and (DEFINITION in value or UNRENDERED in value):
            return str(value["$expr"])  # a child machine: still an expression statekit does not run
        for item in value.values():
            found = unresolved_marker(item, depth + 1)
            if found is not None:
                return found
    elif isinstance(value, list | tuple):
        for item in value:
            found = unresolved_marker(item, depth + 1)
            if found is not None:
                return found
    return None


def unresolved_values(model: MachineModel) -> Iterator[tuple[str, str]]:
    """`(config path, source)` of every unresolved value the engine would use."""
    if model.context is not None:
        found = unresolved_marker(model.context)
        if found is not None:
            yield "context", found
    for node in model.root.walk():
        yield from _in_node(node)


def unresolved_state(node: StateNode) -> str | None:
    """The source of a state config the reader could not evaluate (`states: {a: makeState()}`)."""
    for marker in MARKERS:
        value = node.extra.get(marker)
        if isinstance(value, str) and not node.children and not node.transitions:
            return value
    return None


def _in_node(node: StateNode) -> Iterator[tuple[str, str]]:
    base = ".".join(f"states.{key}" for key in node.path)
    prefix = f"{base}." if base else ""
    state_source = unresolved_state(node)
    if state_source is not None:
        yield base, state_source
    if node.has_output:
        found = unresolved_marker(node.output)
        if found is not None:
            yield f"{prefix}output", found
    for index, invoke in enumerate(node.invoke):
        found = unresolved_marker(invoke.input) if invoke.has_input else None
        if found is not None:
            yield f"{prefix}invoke[{index}].input", found
    for field_name, actions in (("entry", node.entry), ("exit", node.exit), ("initial.actions", node.initial_actions)):
        for index, action in enumerate(actions):
            yield from _in_action(action, f"{prefix}{field_name}[{index}]")
    for transition in node.transitions:
        where = f"{prefix}{transition.kind}.{transition.event}" if transition.event else f"{prefix}{transition.kind}"
        if transition.guard is not None:
            yield from _in_guard(transition.guard, f"{where}.guard")
        for index, action in enumerate(transition.actions):
            yield from _in_action(action, f"{where}.actions[{index}]")


#: Inline actor logic the engine keeps for `spawnChild` without running it (engine/actions.py).
INLINE_LOGIC = re.compile(r"^\s*(fromPromise|fromCallback|fromObservable|fromEventObservable|fromTransition)\s*\(")


#: The kinds of inline logic whose actor starts active (XState's system keeps it under its system id).
STARTS_ACTIVE = frozenset({"fromPromise", "fromCallback", "fromObservable", "fromEventObservable", "fromTransition"})


def child_machine_definition(value: Any) -> dict[str, Any] | None:
    """The definition of a child machine written in place (`{"$expr": "createMachine(...)",
    "$definition": {...}}`), None for anything else."""
    if isinstance(value, Mapping) and len(value) == 2 and isinstance(value.get("$expr"), str):
        definition = value.get(DEFINITION)
        if isinstance(definition, dict):
            return definition
    return None


def is_inline_logic(value: Any) -> bool:
    """Whether `value` is `{"$expr": "fromPromise(...)"}` (or another kind of logic the engine keeps)."""
    code = value.get("$expr") if isinstance(value, Mapping) and len(value) == 1 else None
    return isinstance(code, str) and INLINE_LOGIC.match(code) is not None


#: The type the XState source reader gives an action it kept as an unevaluated expression.
UNREAD_ACTION = "(expression)"


def _in_action(action: Action, where: str) -> Iterator[tuple[str, str]]:
    if action.type == UNREAD_ACTION and action.code is not None:
        yield where, action.code
        return
    fields = dict(action.fields)
    if action.type == "xstate.spawnChild" and (is_inline_logic(fields.get("src"))
                                               or child_machine_definition(fields.get("src")) is not None):
        del fields["src"]  # logic written in place the engine keeps (never runs)
    for value in (action.params, *fields.values()):
        found = unresolved_marker(value)
        if found is not None:
            yield where, found
            return
    for index, item in enumerate(action.enqueued):
        yield from _in_enqueued(item, f"{where}.actions[{index}]")


def _in_enqueued(item: Action | EnqueueBranch, where: str) -> Iterator[tuple[str, str]]:
    if isinstance(item, Action):
        yield from _in_action(item, where)
        return
    yield from _in_guard(item.guard, f"{where}.if")
    for index, then in enumerate(item.then):
        yield from _in_enqueued(then, f"{where}.then[{index}]")
    for index, otherwise in enumerate(item.otherwise):
        yield from _in_enqueued(otherwise, f"{where}.else[{index}]")


def _in_guard(guard: Guard, where: str) -> Iterator[tuple[str, str]]:
    found = unresolved_marker(guard.params)
    if found is not None:
        yield where, found
    for operand in guard.guards:
        yield from _in_guard(operand, where)


_ACTOR_NAMES = re.compile(r"\b(spawn|self|system)\b")
#: What inline code may do with the running actor that statekit's simulation cannot: call a
#: method of `self`, of `system` or of an actor reference (`send`, `getSnapshot`, ...), read
#: `self`'s other fields, or spawn a child machine that registers actors under a system id.
_NEEDS_RUNNING_ACTOR = re.compile(
    r"\b(self\??\.(?!id\b)[A-Za-z_$][\w$]*|system\??\.[A-Za-z_$][\w$]*"
    r"|\.(?:send|getSnapshot|subscribe|getPersistedSnapshot)\s*\(|spawn\s*\(\s*createMachine\s*\((?=[\s\S]*systemId))")


def actor_references(model: MachineModel) -> Iterator[tuple[str, str]]:
    """`(config path, what)` where inline code other than a guard uses the running actor in a way
    statekit's simulation cannot follow (`self.send(...)`, `system.get(...)`, a spawned child
    machine); `self` as a value and `spawn` of named or inline actor logic it does follow."""
    for path, code in _inline_code(model.context, "context"):
        yield from _actor_names(path, code)
    for node in model.root.walk():
        base = ".".join(f"states.{key}" for key in node.path)
        prefix = f"{base}." if base else ""
        if node.has_output:
            for path, code in _inline_code(node.output, f"{prefix}output"):
                yield from _actor_names(path, code)
        for index, invoke in enumerate(node.invoke):
            for path, code in _inline_code(invoke.input, f"{prefix}invoke[{index}].input"):
                yield from _actor_names(path, code)
        groups = [("entry", node.entry), ("exit", node.exit), ("initial.actions", node.initial_actions)]
        groups.extend((f"{t.kind}.{t.event}" if t.event else t.kind, t.actions) for t in node.transitions)
        for name, actions in groups:
            for index, action in enumerate(actions):
                where = f"{prefix}{name}[{index}]"
                for path, code in _inline_code(dict(action.fields), where):
                    yield from _actor_names(path, code)
                body = action.fields.get("code") if action.type == "xstate.enqueueActions" else None
                if isinstance(body, str):  # an enqueueActions body gets `self` and `system` too
                    yield from _actor_names(f"{where}.code", body)


def _inline_code(value: Any, where: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, Mapping):
        code = value.get("$js")
        if len(value) == 1 and isinstance(code, str):
            yield where, code
            return
        for key, item in value.items():
            yield from _inline_code(item, f"{where}.{key}")
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _inline_code(item, f"{where}[{index}]")


def _actor_names(path: str, code: str) -> Iterator[tuple[str, str]]:
    # The parameters: before `=>` of an arrow function, else up to the first `)`.
    head = code.split("=>", 1)[0] if "=>" in code else code.split(")", 1)[0]
    takes_actor = "{" in head and _ACTOR_NAMES.search(head) is not None
    match = _NEEDS_RUNNING_ACTOR.search(code)
    if match is not None and (takes_actor or match.group(1).startswith(".")):
        yield path, re.sub(r"\s+", "", match.group(1)).lstrip(".")
