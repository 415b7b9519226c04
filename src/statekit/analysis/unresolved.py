"""Values the XState source reader could not evaluate (`{"$ref": name}`, `{"$expr": source}`).

The reader keeps what it cannot see statically as a marker instead of guessing. Data that holds
one (context, params, a raised event, an output, an invoke input) is not what XState would
compute, so the engine refuses to use it (`engine/evaluation.py`) and `validate_machine` warns
where it sits.
"""

from __future__ import annotations

from collections.abc import Iterator

from statekit.model.core import Action, EnqueueBranch, Guard, MachineModel, StateNode
from statekit.model.unresolved import unresolved_marker


def unresolved_values(model: MachineModel) -> Iterator[tuple[str, str]]:
    """`(config path, source)` of every unresolved value the engine would use."""
    if model.context is not None:
        found = unresolved_marker(model.context)
        if found is not None:
            yield "context", found
    for node in model.root.walk():
        yield from _in_node(node)


def _in_node(node: StateNode) -> Iterator[tuple[str, str]]:
    base = ".".join(f"states.{key}" for key in node.path)
    prefix = f"{base}." if base else ""
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


def _in_action(action: Action, where: str) -> Iterator[tuple[str, str]]:
    for value in (action.params, *action.fields.values()):
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
