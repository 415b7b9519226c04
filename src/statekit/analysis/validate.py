"""Deterministic checks of a machine's syntax and graph structure.

Every issue has a code from `ISSUE_CODES` (documented in `docs/validation.md`), a severity,
a message and the config path it is about. Issues come in document order.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from statekit.analysis.config_keys import (
    INVOKE_KEYS,
    MACHINE_KEYS,
    STATE_NODE_KEYS,
    TRANSITION_KEYS,
    unknown_key_message,
)
from statekit.budget import check_budget
from statekit.errors import MachineDefinitionError
from statekit.model.core import (
    BUILTIN_ACTIONS,
    BUILTIN_GUARDS,
    Action,
    EnqueueBranch,
    Guard,
    MachineModel,
    StateNode,
    Transition,
)
from statekit.model.resolve import Resolver
from statekit.model.unresolved import actor_references, unresolved_values

Severity = Literal["error", "warning"]

#: code -> (severity, what it means). `docs/validation.md` is generated from this table.
ISSUE_CODES: Mapping[str, tuple[Severity, str]] = {
    "invalid_config": ("error", "The config has the wrong shape (an object where a string belongs, a renamed key such as `cond`)."),
    "unknown_target": ("error", "A transition target does not resolve to a state node."),
    "unknown_key": ("warning", "A key that XState v5's config types do not define for a machine, state, transition or invoke (a typo such as `taget` or `entyr`, or an XState v4 key); XState ignores it. The message names the key it likely meant."),
    "empty_machine": ("error", "The machine has no states, transitions, actions or invocations: nothing would run (an empty config, or one whose keys XState does not know)."),
    "transition_not_machine": ("error", "The config is a transition (`target`, `guard`, `actions` at the top level), not a machine."),
    "ambiguous_target": ("warning", "A target could mean two states (a dotted key, or an id that several states share)."),
    "missing_initial": ("error", "A compound state has no `initial` state."),
    "unknown_initial": ("error", "`initial` names a state that is not a child."),
    "invalid_event_descriptor": ("error", "An event descriptor uses `*` anywhere but as the whole descriptor or its last token (`mouse*`, `*.click`, `a.*.b`)."),
    "empty_event_descriptor": ("error", "An `on` key is the empty string; eventless transitions belong in `always`."),
    "duplicate_id": ("error", "Two state nodes have the same id."),
    "final_state_transitions": ("warning", "A final state has outgoing transitions, which only fire while its parent is still active."),
    "final_state_children": ("error", "A final state has child states."),
    "history_misuse": ("error", "A history state is at the root, has children, or its default target does not resolve inside its parent."),
    "history_transitions": ("warning", "A history state has transitions or actions, which never run."),
    "unreachable_state": ("warning", "No transition, initial state or history default reaches the state."),
    "eventless_loop": ("error", "Unguarded `always` transitions form a cycle, or an unguarded targetless `always` assigns context: the machine never settles."),
    "unknown_action_type": ("error", "An action's type starts with `xstate.` but is not a built-in action."),
    "unknown_guard_type": ("error", "A guard's type starts with `xstate.` but is not a built-in guard."),
    "guard_not_implemented": ("warning", "A named guard has no implementation supplied; running the machine throws when it is evaluated."),
    "action_not_implemented": ("warning", "A named action has no implementation supplied; it is recorded by name and does nothing."),
    "delay_not_implemented": ("warning", "A named delay has no implementation supplied; XState then raises the delayed event at once."),
    "actor_not_implemented": ("warning", "An invoked or spawned actor has no implementation supplied."),
    "unresolved_value": ("warning", "A value the XState source reader could not evaluate statically (`$ref`, `$expr`: an import, a call, a `let`) sits where the machine uses it; simulating stops with an error there instead of guessing."),
    "sandbox_actor_reference": ("warning", "Inline code (not a guard) acts on the running actor (`self.send(...)`, `self.getSnapshot()`, `system.get(...)`, a method of an actor reference, a child machine given to `spawn` that registers actors under a system id); `simulate_machine`, the live tools and the `Actor` stop with an error when that code runs (the pure `transition()` answers as XState's pure transition does)."),
    "sandbox_unavailable_name": ("warning", "Inline code reads a name defined outside the machine that is not a constant (an import, a function, a `let`); statekit carries only module constants into its sandbox, so simulating stops with an error when that code runs."),
}

_DESCRIPTOR = re.compile(r"^(\*|[^*]+(\.\*)?)$")


@dataclass(frozen=True, slots=True)
class Issue:
    code: str
    severity: Severity
    message: str
    path: str

    def to_json(self) -> dict[str, str]:
        return {"code": self.code, "severity": self.severity, "message": self.message, "path": self.path}


@dataclass(frozen=True)
class SuppliedImplementations:
    """Names of the implementations the caller will supply (None: not told, so nothing is)."""

    guards: frozenset[str] = frozenset()
    actions: frozenset[str] = frozenset()
    delays: frozenset[str] = frozenset()
    actors: frozenset[str] = frozenset()


def issue(code: str, message: str, path: str) -> Issue:
    """An issue with the severity its code carries."""
    return Issue(code, ISSUE_CODES[code][0], message, path)


def state_path(node: StateNode) -> str:
    """The config path of a state node (`states.a.states.b`; the root is ``)."""
    return ".".join(f"states.{key}" for key in node.path)


def transition_path(node: StateNode, transition: Transition) -> str:
    base = state_path(node)
    prefix = f"{base}." if base else ""
    where = {
        "on": f"on.{transition.event}",
        "always": "always",
        "after": f"after.{transition.delay}",
        "onDone": "onDone",
        "invoke.onDone": f"invoke[{transition.invoke_index}].onDone",
        "invoke.onError": f"invoke[{transition.invoke_index}].onError",
        "invoke.onSnapshot": f"invoke[{transition.invoke_index}].onSnapshot",
    }[transition.kind]
    return f"{prefix}{where}[{transition.index}]"


def validate_model(model: MachineModel, supplied: SuppliedImplementations | None = None) -> list[Issue]:
    """Every issue of `model`, in document order within each check."""
    supplied = supplied or SuppliedImplementations()
    resolver = Resolver(model)
    issues: list[Issue] = list(_check_keys(model))
    issues.extend(_check_ids(model))
    for node in model.root.walk():
        check_budget()
        issues.extend(_check_state(node, model, resolver))
    issues.extend(_check_eventless_loops(model, resolver))
    issues.extend(_check_reachability(model, resolver))
    issues.extend(_check_implementations(model, supplied))
    issues.extend(issue("unresolved_value", f"`{source}` could not be evaluated statically; the simulation stops with an "
                        "error where it is used", where) for where, source in unresolved_values(model))
    issues.extend(issue("sandbox_actor_reference", f"inline code uses `{name}`, which acts on the running actor; "
                        "statekit's pure transition follows XState's (whose actor never starts), but simulate_machine, "
                        "live sessions and statekit's Actor run no actor for it, so they stop with an error when "
                        "this code runs", where)
                  for where, name in actor_references(model))
    return issues


def _check_keys(model: MachineModel) -> Iterator[Issue]:
    """Keys XState's config types do not define (see `config_keys`), an empty machine, and a
    transition given where a machine belongs."""
    root = model.root
    shaped_as_transition = sorted(key for key in ("target", "guard", "actions", "reenter")
                                  if key in model.extra or (key == "target" and root.target is not None))
    empty = not root.children and not root.transitions and not root.entry and not root.exit and not root.invoke
    if empty and shaped_as_transition:
        yield issue("transition_not_machine", f"the config has {', '.join(f'`{k}`' for k in shaped_as_transition)} at "
                    "the top level and no states: it is a transition, not a machine; a machine has `initial` and "
                    "`states` (a transition goes in a state's `on`)", "")
    elif empty:
        yield issue("empty_machine", "the machine has no states, transitions, actions or invocations: nothing would run",
                    "")
    for key in model.extra:
        if key not in MACHINE_KEYS and not (key in shaped_as_transition and empty):
            yield issue("unknown_key", unknown_key_message(key, MACHINE_KEYS, "machine config"), key)
    for node in root.walk():
        where = state_path(node)
        if node is not root:
            for key in node.extra:
                if key not in STATE_NODE_KEYS:
                    yield issue("unknown_key", unknown_key_message(key, STATE_NODE_KEYS, "state node config"),
                                f"{where}.{key}")
        for index, invoke in enumerate(node.invoke):
            for key in invoke.extra:
                if key not in INVOKE_KEYS:
                    yield issue("unknown_key", unknown_key_message(key, INVOKE_KEYS, "invoke config"),
                                f"{where + '.' if where else ''}invoke[{index}].{key}")
        for transition in node.transitions:
            for key in transition.extra:
                if key not in TRANSITION_KEYS:
                    yield issue("unknown_key", unknown_key_message(key, TRANSITION_KEYS, "transition config"),
                                f"{transition_path(node, transition)}.{key}")


def sandbox_name_issues(module_scope: Mapping[str, Any]) -> list[Issue]:
    """Warnings for the module-scope names inline code reads that the sandbox cannot have
    (`moduleScope.unavailable` of an extracted machine's implementations)."""
    unavailable = module_scope.get("unavailable") if isinstance(module_scope, Mapping) else None
    if not isinstance(unavailable, Mapping):
        return []
    return [issue("sandbox_unavailable_name", f"inline code reads '{name}', which is {reason}; statekit runs inline "
                  "code without it, and simulating stops with an error when that code runs", "")
            for name, reason in unavailable.items()]


def _check_ids(model: MachineModel) -> Iterator[Issue]:
    seen: dict[str, StateNode] = {}
    for node in model.root.walk():
        if node.id in seen:
            yield issue("duplicate_id", f"state id '{node.id}' is used by '{_display(seen[node.id])}' and '{_display(node)}'",
                        state_path(node))
        else:
            seen[node.id] = node


def _display(node: StateNode) -> str:
    return ".".join(node.path) or "(root)"


def _check_state(node: StateNode, model: MachineModel, resolver: Resolver) -> Iterator[Issue]:
    where = state_path(node)
    if node.type == "compound":
        if not node.initial:
            yield issue("missing_initial", f"compound state '{_display(node)}' has no initial state; "
                        f"add initial: '{node.children[0].key}'", where)
        elif node.child(node.initial) is None:
            yield issue("unknown_initial", f"initial state '{node.initial}' is not a child of '{_display(node)}'",
                        f"{where}.initial" if where else "initial")
        else:
            initial = node.child(node.initial)
            if initial is not None and initial.type == "history" and not initial.target:
                yield issue("history_misuse", f"the initial state of '{_display(node)}' is a history state without a "
                            "default target: entering it never ends", f"{where}.initial" if where else "initial")
    if node.type == "final":
        if node.children:
            yield issue("final_state_children", f"final state '{_display(node)}' has child states", where)
        if any(t.kind in ("on", "always", "after") for t in node.transitions):
            yield issue("final_state_transitions", f"final state '{_display(node)}' has outgoing transitions", where)
    if node.type == "history":
        yield from _check_history(node, model, resolver)
    for transition in node.transitions:
        yield from _check_transition(node, transition, model, resolver)
    for action, path in _state_actions(node):
        yield from _check_action(action, path)


def _check_history(node: StateNode, model: MachineModel, resolver: Resolver) -> Iterator[Issue]:
    where = state_path(node)
    if node.parent_id is None:
        yield issue("history_misuse", "the root cannot be a history state", where)
        return
    if node.children:
        yield issue("history_misuse", f"history state '{_display(node)}' has child states", where)
    if node.transitions or node.entry or node.exit or node.invoke:
        yield issue("history_transitions", f"history state '{_display(node)}' has transitions or actions, which never run", where)
    parent = model.nodes[node.parent_id]
    for target in node.target or ():
        try:
            resolved = resolver.node_by_path(parent, target)
        except MachineDefinitionError as error:
            yield issue("history_misuse", f"history default target '{target}' does not resolve: {error.message}", f"{where}.target")
            continue
        if resolved.id != parent.id and parent.id not in _ancestor_ids(resolved, model):
            yield issue("history_misuse", f"history default target '{target}' is not inside '{_display(parent)}'", f"{where}.target")


def _ancestor_ids(node: StateNode, model: MachineModel) -> set[str]:
    result: set[str] = set()
    current = node.parent_id
    while current is not None:
        result.add(current)
        current = model.nodes[current].parent_id
    return result


def _check_transition(node: StateNode, transition: Transition, model: MachineModel, resolver: Resolver) -> Iterator[Issue]:
    where = transition_path(node, transition)
    if transition.extra.get("cond") is not None:
        yield issue("invalid_config", "`cond` was renamed to `guard` in XState v5", f"{where}.cond")
    if transition.kind == "on" and transition.index == 0:  # one report per descriptor
        if transition.event == "":
            yield issue("empty_event_descriptor", "the empty event key is not allowed; use `always`", where)
        elif not _DESCRIPTOR.match(transition.event) or ".*." in transition.event:
            yield issue("invalid_event_descriptor",
                        f"'{transition.event}': a wildcard must be the whole descriptor ('*') or its last token ('a.*')", where)
    for target in transition.targets or ():
        try:
            resolved = resolver.resolve_target(node, target)
        except MachineDefinitionError as error:
            yield issue("unknown_target", f"target '{target}' of '{_display(node)}' does not resolve: {error.message}", where)
            continue
        ambiguity = _ambiguity(node, target, resolved, model)
        if ambiguity:
            yield issue("ambiguous_target", ambiguity, where)
    if transition.guard is not None:
        yield from _check_guard(transition.guard, f"{where}.guard")
        yield from _check_state_in(transition.guard, resolver, f"{where}.guard")
    for index, action in enumerate(transition.actions):
        yield from _check_action(action, f"{where}.actions[{index}]")


def _ambiguity(node: StateNode, target: str, resolved: StateNode, model: MachineModel) -> str | None:
    if target.startswith("#"):
        head = target[1:].split(".")[0]
        sharing = _id_counts(model).get(head, 0)
        if sharing > 1:
            return f"target '{target}': {sharing} states have the id '{head}'"
        return None
    if "." in target.lstrip("."):
        parent = model.nodes.get(node.parent_id) if node.parent_id else None
        scope = node if target.startswith(".") else parent
        literal = scope.child(target.lstrip(".")) if scope is not None else None
        if literal is not None and literal.id != resolved.id:
            return f"target '{target}' resolves to '{_display(resolved)}', not to the state whose key is '{literal.key}'"
    return None


def _id_counts(model: MachineModel) -> dict[str, int]:
    """How many state nodes carry each id (computed once per model)."""
    cached: dict[str, int] | None = model.__dict__.get("_id_counts")
    if cached is None:
        cached = {}
        for node in model.root.walk():
            cached[node.id] = cached.get(node.id, 0) + 1
        model.__dict__["_id_counts"] = cached
    return cached


def _state_actions(node: StateNode) -> Iterator[tuple[Action, str]]:
    where = state_path(node)
    prefix = f"{where}." if where else ""
    for index, action in enumerate(node.entry):
        yield action, f"{prefix}entry[{index}]"
    for index, action in enumerate(node.exit):
        yield action, f"{prefix}exit[{index}]"


def _check_action(action: Action, where: str) -> Iterator[Issue]:
    if action.type.startswith("xstate.") and action.type not in BUILTIN_ACTIONS:
        yield issue("unknown_action_type", f"'{action.type}' is not a built-in action (known: {', '.join(sorted(BUILTIN_ACTIONS))})", where)
    if action.type == "xstate.enqueueActions":
        yield from _check_enqueued(action.enqueued, f"{where}.actions")


def _check_enqueued(items: tuple[Action | EnqueueBranch, ...], where: str) -> Iterator[Issue]:
    for index, item in enumerate(items):
        if isinstance(item, Action):
            yield from _check_action(item, f"{where}[{index}]")
        else:
            yield from _check_guard(item.guard, f"{where}[{index}].if")
            yield from _check_enqueued(item.then, f"{where}[{index}].then")
            yield from _check_enqueued(item.otherwise, f"{where}[{index}].else")


def _check_state_in(guard: Guard, resolver: Resolver, where: str) -> Iterator[Issue]:
    """`stateIn('#id')` naming no state throws when the guard runs; say so before."""
    if guard.type == "xstate.stateIn" and isinstance(guard.state, str) and guard.state.startswith("#"):
        try:
            resolver.node_by_id(guard.state)
        except MachineDefinitionError as error:
            yield issue("unknown_target", f"stateIn('{guard.state}') names no state: {error.message}", where)
    for operand in guard.guards:
        yield from _check_state_in(operand, resolver, where)


def _check_guard(guard: Guard, where: str) -> Iterator[Issue]:
    if guard.type.startswith("xstate.") and guard.type not in BUILTIN_GUARDS:
        yield issue("unknown_guard_type", f"'{guard.type}' is not a built-in guard (known: {', '.join(sorted(BUILTIN_GUARDS))})", where)
    for operand in guard.guards:
        yield from _check_guard(operand, where)


# -- eventless loops ------------------------------------------------------------------------


def _default_entry(node: StateNode, model: MachineModel, resolver: Resolver,
                   seen: set[str] | None = None) -> list[StateNode]:
    """The states entering `node` makes active by default (itself and default descendants)."""
    seen = set() if seen is None else seen
    if node.id in seen:  # an initial that is its own history state, or a history cycle
        return []
    seen.add(node.id)
    result = [node]
    if node.type == "compound":
        initial = node.child(node.initial) if node.initial else None
        if initial is not None:
            result.extend(_default_entry(initial, model, resolver, seen))
    elif node.type == "parallel":
        for child in node.children:
            if child.type != "history":
                result.extend(_default_entry(child, model, resolver, seen))
    elif node.type == "history" and node.parent_id is not None:
        parent = model.nodes[node.parent_id]
        if node.target:
            for target in node.target:
                with contextlib.suppress(MachineDefinitionError):  # reported by the history check
                    result.extend(_default_entry(resolver.node_by_path(parent, target), model, resolver, seen))
        else:
            initial = parent.child(parent.initial) if parent.initial else None
            if initial is not None:
                result.extend(_default_entry(initial, model, resolver, seen))
    return result


def _assigns(actions: Iterable[Action]) -> bool:
    return any(a.type in ("xstate.assign", "xstate.enqueueActions") for a in actions)


def _certain_eventless(node: StateNode, model: MachineModel) -> Transition | None:
    """The `always` transition that surely fires in atomic `node`, if one surely does.

    XState takes, from the node up, the first `always` whose guard passes; it is certain
    only when the nearest node with `always` transitions has an unguarded first one.
    """
    current: StateNode | None = node
    while current is not None:
        always = [t for t in current.transitions if t.kind == "always"]
        if always:
            return always[0] if always[0].guard is None else None
        current = model.nodes[current.parent_id] if current.parent_id else None
    return None


def _check_eventless_loops(model: MachineModel, resolver: Resolver) -> Iterator[Issue]:
    successors: dict[str, list[str]] = {}
    for node in model.root.walk():
        if node.type not in ("atomic", "final"):
            continue
        transition = _certain_eventless(node, model)
        if transition is None:
            continue
        if transition.targets is None:
            if _assigns(transition.actions) and transition.source_id == node.id:
                yield issue("eventless_loop",
                            f"'{_display(node)}' has an unguarded targetless `always` that assigns context: it never settles",
                            transition_path(node, transition))
            continue
        entered: list[str] = []
        source = model.nodes[transition.source_id]
        for target in transition.targets:
            try:
                resolved = resolver.resolve_target(source, target)
            except MachineDefinitionError:
                continue
            entered.extend(n.id for n in _default_entry(resolved, model, resolver) if n.type in ("atomic", "final"))
        successors[node.id] = entered
    order = {state_id: index for index, state_id in enumerate(model.nodes)}
    reported: set[str] = set()
    for start in sorted(successors, key=order.__getitem__):
        cycle = _cycle_from(start, successors)
        if cycle and not reported.intersection(cycle):
            reported.update(cycle)
            names = " -> ".join(_display(model.nodes[i]) for i in [*cycle, cycle[0]])
            yield issue("eventless_loop", f"unguarded `always` transitions cycle: {names}", state_path(model.nodes[start]))


def _cycle_from(start: str, successors: Mapping[str, list[str]]) -> list[str] | None:
    """A path start -> ... -> start in the eventless graph, if any."""
    stack: list[tuple[str, list[str]]] = [(start, [start])]
    visited = {start}
    while stack:
        current, trail = stack.pop()
        for nxt in successors.get(current, ()):
            if nxt == start:
                return trail
            if nxt not in visited:
                visited.add(nxt)
                stack.append((nxt, [*trail, nxt]))
    return None


# -- reachability ---------------------------------------------------------------------------


def _check_reachability(model: MachineModel, resolver: Resolver) -> Iterator[Issue]:
    reached: set[str] = set()
    pending: list[StateNode] = []

    def enter(node: StateNode) -> None:
        for entered in _default_entry(node, model, resolver):
            for state_id in (entered.id, *_ancestor_ids(entered, model)):
                if state_id not in reached:
                    reached.add(state_id)
                    pending.append(model.nodes[state_id])

    enter(model.root)
    while pending:
        node = pending.pop()
        for transition in node.transitions:
            for target in transition.targets or ():
                try:
                    enter(resolver.resolve_target(node, target))
                except MachineDefinitionError:
                    continue
    for node in model.root.walk():
        if node.id not in reached and node.type != "history":
            parent_reached = node.parent_id is None or node.parent_id in reached
            if parent_reached:  # report the outermost unreachable state only
                yield issue("unreachable_state", f"state '{_display(node)}' is never entered", state_path(node))


# -- implementations ------------------------------------------------------------------------


def _check_implementations(model: MachineModel, supplied: SuppliedImplementations) -> Iterator[Issue]:
    guards: dict[str, str] = {}
    actions: dict[str, str] = {}
    delays: dict[str, str] = {}
    actors: dict[str, str] = {}
    for node in model.root.walk():
        for action, where in _state_actions(node):
            _collect_action(action, where, actions, delays, actors, guards)
        for index, invoke in enumerate(node.invoke):
            prefix = f"{state_path(node)}." if node.path else ""
            actors.setdefault(invoke.src, f"{prefix}invoke[{index}].src")
        for transition in node.transitions:
            where = transition_path(node, transition)
            if transition.guard is not None:
                for name in transition.guard.names():
                    if not name.startswith("xstate."):  # unknown built-ins are reported as such
                        guards.setdefault(name, f"{where}.guard")
            for index, action in enumerate(transition.actions):
                _collect_action(action, f"{where}.actions[{index}]", actions, delays, actors, guards)
            if transition.kind == "after" and isinstance(transition.delay, str):
                delays.setdefault(transition.delay, where)
    for table, code, kind, names in (
        (guards, "guard_not_implemented", "guard", supplied.guards),
        (actions, "action_not_implemented", "action", supplied.actions),
        (delays, "delay_not_implemented", "delay", supplied.delays),
        (actors, "actor_not_implemented", "actor", supplied.actors),
    ):
        for name, where in table.items():
            if name not in names:
                yield issue(code, f"no implementation supplied for {kind} '{name}'", where)


def _collect_action(action: Action, where: str, actions: dict[str, str], delays: dict[str, str],
                    actors: dict[str, str], guards: dict[str, str]) -> None:
    for name in action.names():
        if not name.startswith("xstate."):  # unknown built-ins are reported as such
            actions.setdefault(name, where)
    delay = action.fields.get("delay")
    if isinstance(delay, str):
        delays.setdefault(delay, f"{where}.delay")
    if action.type == "xstate.spawnChild" and isinstance(action.fields.get("src"), str):
        actors.setdefault(action.fields["src"], f"{where}.src")
    if action.type == "xstate.enqueueActions":
        _collect_branch_guards(action.enqueued, where, guards)
        for item in _enqueued_actions(action.enqueued):
            _collect_action(item, where, actions, delays, actors, guards)


def _enqueued_actions(items: tuple[Action | EnqueueBranch, ...]) -> Iterator[Action]:
    for item in items:
        if isinstance(item, Action):
            yield item
        else:
            yield from _enqueued_actions(item.then)
            yield from _enqueued_actions(item.otherwise)


def _collect_branch_guards(items: tuple[Action | EnqueueBranch, ...], where: str, guards: dict[str, str]) -> None:
    for item in items:
        if isinstance(item, EnqueueBranch):
            for name in item.guard.names():
                guards.setdefault(name, f"{where}.actions")
            _collect_branch_guards(item.then, where, guards)
            _collect_branch_guards(item.otherwise, where, guards)


def summarize(issues: list[Issue]) -> dict[str, Any]:
    """The `validate_machine` result: ok when no issue is an error."""
    return {"ok": not any(i.severity == "error" for i in issues), "issues": [i.to_json() for i in issues]}
