"""A machine's structure without its code: what path finding traverses when inline code cannot run.

Machines extracted from real source carry inline JavaScript that refers to imported names,
to `input` the caller never gave, or to a browser; run natively, it fails on the first step.
The structure (states, events, targets, raised events) is still a statechart worth
traversing, the way statekit traverses formats that never had code (SCXML conditions,
Mermaid): guards are assumed (true unless the caller says otherwise), context is left out,
and the actions that only compute data are dropped. `structural_model` builds that machine
and lists everything it left out, for the result's `normalization`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from statekit.engine.inline import is_inline
from statekit.model.core import (
    Action,
    EnqueueBranch,
    Guard,
    Invoke,
    MachineModel,
    StateNode,
    Transition,
)

#: Actions kept in the structure: they move the machine (events, actors, timers), not data.
#: `sendParent` is not: it moves only a parent, and a machine traversed alone has none (the
#: send throws "Unable to send event to actor '#_parent'", as sanity's deletionMachine showed).
_STRUCTURAL_BUILTINS = frozenset({
    "xstate.raise", "xstate.sendTo", "xstate.emit", "xstate.cancel",
    "xstate.spawnChild", "xstate.stopChild", "xstate.enqueueActions",
})


@dataclass
class StructuralChanges:
    """What the structural machine leaves out, by kind (ids and names, in document order)."""

    #: Inline guards, by the name they are assumed under (`guards` can set them).
    inline_guards: list[str] = field(default_factory=list)
    #: Actions dropped: `<state id>: <action type>` (assignments, inline code).
    dropped_actions: list[str] = field(default_factory=list)
    #: Other inline code dropped (outputs, invoke inputs, params), by where it was.
    dropped_code: list[str] = field(default_factory=list)
    context_dropped: bool = False
    #: Whether the machine has inline code at all (else the structure is the machine).
    has_code: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "inlineGuards": self.inline_guards,
            "droppedActions": self.dropped_actions,
            "droppedCode": self.dropped_code,
            "contextDropped": self.context_dropped,
        }


#: Extraction's markers for what source code held but could not be read statically.
_UNREAD_MARKERS = ("$expr", "$ref")


def _contains_inline(value: Any) -> bool:
    """Inline code, a Python callable, or an expression extraction could not evaluate."""
    if is_inline(value) or callable(value):
        return True
    if isinstance(value, Mapping) and len(value) == 1 and next(iter(value)) in _UNREAD_MARKERS:
        return True
    if isinstance(value, Mapping):
        return any(_contains_inline(item) for item in value.values())
    if isinstance(value, list | tuple):
        return any(_contains_inline(item) for item in value)
    return False


class _Structure:
    def __init__(self) -> None:
        self.changes = StructuralChanges()

    def guard(self, guard: Guard, where: str) -> Guard:
        if guard.is_builtin:
            operands = tuple(self.guard(operand, f"{where}.{index}") for index, operand in enumerate(guard.guards))
            return replace(guard, guards=operands)
        if guard.code is not None:
            self.changes.has_code = True
            name = f"inline guard of {where}"
            self.changes.inline_guards.append(name)
            return Guard(type=name)
        if guard.has_params and _contains_inline(guard.params):
            self.changes.has_code = True
            self.changes.dropped_code.append(f"{where}: params of guard '{guard.type}'")
            return Guard(type=guard.type)
        return guard

    def actions(self, actions: tuple[Action, ...], where: str) -> tuple[Action, ...]:
        kept: list[Action] = []
        for action in actions:
            structural = self.action(action, where)
            if structural is not None:
                kept.append(structural)
        return tuple(kept)

    def action(self, action: Action, where: str) -> Action | None:
        if action.code is not None or (action.is_builtin and action.type not in _STRUCTURAL_BUILTINS):
            # Inline code, assignments (context is left out) and logs compute data only.
            self.changes.has_code = self.changes.has_code or action.code is not None or _contains_inline(action.fields)
            self.changes.dropped_actions.append(f"{where}: {action.type}")
            return None
        if action.type == "xstate.enqueueActions":
            return replace(action, enqueued=self.enqueued(action.enqueued, where))
        if _contains_inline(action.fields) or (action.has_params and _contains_inline(action.params)):
            self.changes.has_code = True
            self.changes.dropped_actions.append(f"{where}: {action.type}")
            return None
        return action

    def enqueued(self, items: tuple[Action | EnqueueBranch, ...], where: str) -> tuple[Action | EnqueueBranch, ...]:
        kept: list[Action | EnqueueBranch] = []
        for index, item in enumerate(items):
            if isinstance(item, EnqueueBranch):
                kept.append(EnqueueBranch(
                    guard=self.guard(item.guard, f"{where} enqueued[{index}]"),
                    then=self.enqueued(item.then, where),
                    otherwise=self.enqueued(item.otherwise, where),
                ))
            else:
                structural = self.action(item, where)
                if structural is not None:
                    kept.append(structural)
        return tuple(kept)

    def transition(self, transition: Transition) -> Transition:
        where = transition.id
        guard = None if transition.guard is None else self.guard(transition.guard, where)
        delay = transition.delay
        if is_inline(delay):
            self.changes.has_code = True
            self.changes.dropped_code.append(f"{where}: delay")
            delay = transition.delay_key
        return replace(transition, guard=guard, actions=self.actions(transition.actions, where), delay=delay)

    def invoke(self, invoke: Invoke, where: str) -> Invoke:
        if invoke.has_input and _contains_inline(invoke.input):
            self.changes.has_code = True
            self.changes.dropped_code.append(f"{where}: input of invoke '{invoke.src}'")
            return replace(invoke, input=None, has_input=False)
        return invoke

    def node(self, node: StateNode) -> StateNode:
        output, has_output = node.output, node.has_output
        if has_output and _contains_inline(output):
            self.changes.has_code = True
            self.changes.dropped_code.append(f"{node.id}: output")
            output, has_output = None, False
        return replace(
            node,
            children=tuple(self.node(child) for child in node.children),
            transitions=tuple(self.transition(t) for t in node.transitions),
            entry=self.actions(node.entry, f"{node.id} entry"),
            exit=self.actions(node.exit, f"{node.id} exit"),
            invoke=tuple(self.invoke(invoke, node.id) for invoke in node.invoke),
            output=output,
            has_output=has_output,
        )


def structural_model(model: MachineModel) -> tuple[MachineModel, StructuralChanges]:
    """The machine without context, assignments and inline code; guards become assumed names."""
    structure = _Structure()
    root = structure.node(model.root)
    structure.changes.context_dropped = model.has_context
    structure.changes.has_code = structure.changes.has_code or _contains_inline(model.context)
    return replace(model, root=root, context=None, has_context=False), structure.changes


def eventless_guards(model: MachineModel) -> list[str]:
    """The named guards of `always` transitions, in document order.

    Assumed true, two of them can chase each other for ever (`a` -> `b` when "has matches",
    `b` -> `a` when "no matches": both hold), and the structure never settles; assumed false,
    the machine still moves on its events.
    """
    names: list[str] = []
    for node in model.root.walk():
        for transition in node.transitions:
            guard = transition.guard
            if transition.kind == "always" and guard is not None and not guard.is_builtin and guard.type not in names:
                names.append(guard.type)
    return names
