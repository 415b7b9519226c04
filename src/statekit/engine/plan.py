"""Microstep plans: the structural half of a microstep, computed once and reused.

Which states a set of transitions exits and enters, in what order, with which actions, what
history it records and which done events entering final states raises depend only on the
transitions, the active nodes (in order) and, for transitions into history states, the
recorded history. None of it depends on context or the event. So the engine computes a
plan with XState's own set functions the first time and replays it afterwards; replaying
resolves the actions against the live snapshot, which is where context and events matter.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from statekit.engine.machine import _UNKNOWN, Node, RuntimeTransition
from statekit.model.core import Action

HistoryValue = Mapping[str, tuple[Node, ...]]

#: Plans kept per machine before the cache is cleared (bounds memory on huge state spaces).
MAX_PLANS = 8192


@dataclass(frozen=True, slots=True)
class FinalEntry:
    """What entering a final state does beyond its actions."""

    #: The compound parent whose done event (with this state's output) is raised, if any.
    parent_done_id: str | None
    #: Parallel ancestors completed by this entry, innermost first (their done events).
    parallel_done_ids: tuple[str, ...]
    #: Whether the machine is done, and the node whose completion made it so.
    machine_done: bool
    completion: Node


@dataclass(frozen=True, slots=True)
class EntryStep:
    node: Node
    actions: tuple[Action, ...]
    deferred_actor_ids: tuple[str, ...]
    final: FinalEntry | None


# Not frozen: a plan is built on every cache miss, and a frozen dataclass pays for each field.
@dataclass(slots=True)
class MicrostepPlan:
    filtered: tuple[RuntimeTransition, ...]
    #: States exited, in exit order, each with its exit actions (and stopChild per invoke).
    exits: tuple[tuple[Node, tuple[Action, ...]], ...]
    #: History recorded while exiting: `(history state id, recorded nodes)`; None: none.
    history_updates: tuple[tuple[str, tuple[Node, ...]], ...] | None
    entries: tuple[EntryStep, ...]
    #: The active nodes afterwards, in XState's `_nodes` order.
    next_nodes: tuple[Node, ...]
    #: Whether the active set is unchanged (then XState keeps the snapshot's node list).
    same_nodes: bool
    #: The one node below which the active set changed, when it stays active itself (a lone
    #: transition's domain, not re-entered): the next state value is the previous one with
    #: only this node's part read anew (`snapshot.value_after`). None: read it all.
    value_root: Node | None = None
    #: Whether what is active below `value_root` afterwards is a proper configuration.
    part_is_proper: bool = False


def plan_key(transitions: list[RuntimeTransition], nodes: tuple[Node, ...], history: HistoryValue | None,
             is_initial: bool) -> tuple[object, ...]:
    """The cache key; recorded history counts only in machines that have history states."""
    history_part = tuple(history.items()) if history else ()
    return (tuple(transitions), nodes, history_part, is_initial)


def build_plan(transitions: list[RuntimeTransition], nodes: tuple[Node, ...], history: HistoryValue,
               is_initial: bool) -> MicrostepPlan:
    """Compute the plan with XState's set algorithms (see `algorithm.py`).

    One transition whose entry set is fixed (`entry_template`) takes a shorter road: only its
    exit set, which depends on the active nodes, is computed; the result is the same.
    """
    if len(transitions) == 1 and not is_initial:
        template = entry_template(transitions[0])
        if template is not None:
            return _plan_with_template(transitions[0], template, nodes, history)
    from statekit.engine.algorithm import (
        EntrySet,
        compute_entry_set,
        remove_conflicting_transitions,
    )

    active: dict[Node, None] = dict.fromkeys(nodes)
    filtered = remove_conflicting_transitions(transitions, active, history)
    exits, updates = ((), None) if is_initial else _exit_steps(filtered, active, history)
    history_after: HistoryValue = {**history, **dict(updates)} if updates is not None else history

    to_enter = EntrySet()
    for_default_entry: dict[Node, None] = {}
    compute_entry_set(filtered, history_after, for_default_entry, to_enter)
    root = nodes[0].machine.root if nodes else filtered[0].source.machine.root
    if is_initial:
        for_default_entry[root] = None
    entries: list[EntryStep] = []
    completed: set[Node] = set()
    for entering in sorted(to_enter, key=lambda n: n.order):
        active[entering] = None
        entries.append(_entry_step(entering, entering in for_default_entry, active, completed))
    return MicrostepPlan(
        filtered=tuple(filtered),
        exits=exits,
        history_updates=updates,
        entries=tuple(entries),
        next_nodes=tuple(active),
        same_nodes=_same_nodes(nodes, active),
    )


def _same_nodes(nodes: tuple[Node, ...], active: dict[Node, None]) -> bool:
    return len(nodes) == len(active) and all(node in active for node in nodes)


ExitSteps = tuple[tuple[Node, tuple[Action, ...]], ...]
HistoryUpdates = tuple[tuple[str, tuple[Node, ...]], ...] | None


def _exit_steps(filtered: list[RuntimeTransition], active: dict[Node, None], history: HistoryValue,
                to_exit: list[Node] | None = None) -> tuple[ExitSteps, HistoryUpdates]:
    """`computeExitSet`, the history it records, and the exit actions; removes the exited from `active`."""
    from statekit.engine.algorithm import compute_exit_set

    if to_exit is None:
        to_exit = compute_exit_set(filtered, active, history)
    to_exit.sort(key=lambda n: -n.order)
    updates: list[tuple[str, tuple[Node, ...]]] | None = None
    for exiting in to_exit:
        for history_node in exiting.history_children:
            if history_node.history == "deep":
                recorded = tuple(n for n in active if n.type in ("atomic", "final") and n.is_descendant_of(exiting))
            else:
                recorded = tuple(n for n in active if n.parent is exiting)
            if updates is None:
                updates = []
            updates.append((history_node.id, recorded))
    exits: list[tuple[Node, tuple[Action, ...]]] = []
    for exiting in to_exit:
        exits.append((exiting, exiting.exit_actions))
        del active[exiting]
    return tuple(exits), tuple(updates) if updates is not None else None


def _entry_step(entering: Node, default_entry: bool, active: dict[Node, None], completed: set[Node]) -> EntryStep:
    """What entering one state does: entry actions, invokes, initial actions, done events.

    `active` already holds `entering` and everything entered before it; `completed` collects
    the parallel states whose completion an earlier entry of this microstep reported.
    """
    from statekit.engine.algorithm import is_in_final_state

    actions: list[Action] = list(entering.entry)
    sync_snapshot = any(t.kind == "invoke.onSnapshot" for t in entering.model.transitions)
    for invoke in entering.invoke:
        fields: dict[str, object] = {"src": invoke.src, "id": invoke.id, "systemId": invoke.system_id,
                                     "syncSnapshot": sync_snapshot}
        if invoke.has_input:
            fields["input"] = invoke.input
        actions.append(Action(type="xstate.spawnChild", fields=fields))
    if default_entry:
        actions.extend(entering.initial_actions)
    final: FinalEntry | None = None
    if entering.type == "final":
        parent = entering.parent
        marker = parent if parent is not None and parent.type == "parallel" else (parent.parent if parent else None)
        completion = marker or entering
        parallel_done: list[str] = []
        while marker is not None and marker.type == "parallel" and marker not in completed and is_in_final_state(active, marker):
            completed.add(marker)
            parallel_done.append(marker.id)
            completion = marker
            marker = marker.parent
        final = FinalEntry(
            parent_done_id=parent.id if parent is not None and parent.type == "compound" else None,
            parallel_done_ids=tuple(parallel_done),
            machine_done=marker is None,
            completion=completion,
        )
    return EntryStep(entering, tuple(actions), tuple(inv.id for inv in entering.invoke), final)


@dataclass(frozen=True, slots=True)
class EntryTemplate:
    """What one transition taken alone enters, in entry order (see `entry_template`)."""

    entries: tuple[EntryStep, ...]
    #: Whether the entered states make a proper configuration below the transition's domain
    #: (one child per compound state, every region of a parallel one).
    proper_below_domain: bool


def _proper_below(domain: Node | None, entered: set[Node]) -> bool:
    if domain is None or any(node is not domain and node not in domain.descendants for node in entered):
        return False
    for node in (domain, *entered):
        children = [child for child in entered if child.parent is node]
        if node.type == "compound" and len(children) != 1:
            return False
        if node.type == "parallel" and len(children) != len(node.regions):
            return False
    return True


class _WatchedHistory(dict[str, tuple[Node, ...]]):
    """An empty history that notes whether the entry computation ever looked into it."""

    consulted = False

    def get(self, key: str, default: object = None) -> object:  # type: ignore[override]
        self.consulted = True
        return super().get(key, default)


def entry_template(transition: RuntimeTransition) -> EntryTemplate | None:
    """The entry set of `transition` alone, when it depends on nothing but the transition.

    XState's `computeEntrySet` for one transition reads only the transition, the tree and,
    through history states (targeted or reached by initial states), the recorded history.
    So when computing it never consults the history and enters no final state (whose done
    events depend on the other active states), the result holds in every configuration:
    it is computed once per transition. None: computed per microstep instead.
    """
    cached = transition.entry_template
    if cached is not _UNKNOWN:
        result: EntryTemplate | None = cached
        return result
    from statekit.engine.algorithm import EntrySet, compute_entry_set

    watched = _WatchedHistory()
    to_enter = EntrySet()
    for_default_entry: dict[Node, None] = {}
    compute_entry_set([transition], watched, for_default_entry, to_enter)
    template: EntryTemplate | None = None
    if not watched.consulted and all(node.type != "final" for node in to_enter):
        from statekit.engine.algorithm import transition_domain

        ordered = sorted(to_enter, key=lambda n: n.order)
        template = EntryTemplate(
            tuple(_entry_step(node, node in for_default_entry, {}, set()) for node in ordered),
            _proper_below(transition_domain(transition, watched), set(to_enter)),
        )
    transition.entry_template = template
    return template


def _plan_with_template(transition: RuntimeTransition, template: EntryTemplate, nodes: tuple[Node, ...],
                        history: HistoryValue) -> MicrostepPlan:
    """`build_plan` for one transition with a fixed entry set: exits computed, entries reused.

    The exit set is `computeExitSet` for one transition: the domain when a re-entering
    transition's source is its domain, then every active descendant of the domain, read from
    the domain's precomputed descendants.
    """
    from statekit.engine.algorithm import transition_domain

    if not transition.target:  # targetless: nothing exits or enters (its template is empty)
        return MicrostepPlan(filtered=(transition,), exits=(), history_updates=None, entries=(),
                             next_nodes=nodes, same_nodes=True)
    active: dict[Node, None] = dict.fromkeys(nodes)
    value_root: Node | None = None
    domain = transition_domain(transition, history)
    if domain is None:
        to_exit = list(nodes)
    else:
        below = domain.descendants
        to_exit = [node for node in nodes if node in below]
        if transition.reenter and transition.source is domain:
            to_exit.insert(0, domain)
        elif domain.type in ("compound", "parallel"):
            value_root = domain  # it stays active
    exits, updates = _exit_steps([transition], active, history, to_exit)
    # The set is unchanged when every exited state is entered again and nothing else is new.
    exited = {node for node, _ in exits}
    reentered = 0
    added = False
    for entry in template.entries:
        node = entry.node
        if node in exited:
            reentered += 1
        elif node not in active:
            added = True
        active[node] = None
    return MicrostepPlan(
        filtered=(transition,),
        exits=exits,
        history_updates=updates,
        entries=template.entries,
        next_nodes=tuple(active),
        same_nodes=not added and reentered == len(exited),
        value_root=value_root,
        part_is_proper=template.proper_below_domain,
    )
