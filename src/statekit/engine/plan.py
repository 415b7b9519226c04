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

from statekit.engine.machine import Node, RuntimeTransition
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


@dataclass(frozen=True, slots=True)
class MicrostepPlan:
    filtered: tuple[RuntimeTransition, ...]
    #: States exited, in exit order, each with its exit actions (and stopChild per invoke).
    exits: tuple[tuple[Node, tuple[Action, ...]], ...]
    #: History recorded while exiting: `(history state id, recorded nodes)`; None: none.
    history_updates: tuple[tuple[str, tuple[Node, ...]], ...] | None
    transition_actions: tuple[Action, ...]
    entries: tuple[EntryStep, ...]
    #: The active nodes afterwards, in XState's `_nodes` order.
    next_nodes: tuple[Node, ...]
    #: Whether the active set is unchanged (then XState keeps the snapshot's node list).
    same_nodes: bool


def plan_key(transitions: list[RuntimeTransition], nodes: tuple[Node, ...], history: HistoryValue | None,
             is_initial: bool) -> tuple[object, ...]:
    """The cache key; recorded history counts only in machines that have history states."""
    history_part = tuple(history.items()) if history else ()
    return (tuple(transitions), nodes, history_part, is_initial)


def build_plan(transitions: list[RuntimeTransition], nodes: tuple[Node, ...], history: HistoryValue,
               is_initial: bool) -> MicrostepPlan:
    """Compute the plan with XState's set algorithms (see `algorithm.py`)."""
    from statekit.engine.algorithm import (
        EntrySet,
        compute_entry_set,
        compute_exit_set,
        is_in_final_state,
        remove_conflicting_transitions,
    )

    active: dict[Node, None] = dict.fromkeys(nodes)
    filtered = remove_conflicting_transitions(transitions, active, history)
    exits: list[tuple[Node, tuple[Action, ...]]] = []
    updates: list[tuple[str, tuple[Node, ...]]] | None = None
    if not is_initial:
        to_exit = compute_exit_set(filtered, active, history)
        to_exit.sort(key=lambda n: -n.order)
        for exiting in to_exit:
            for history_node in exiting.history_children:
                if history_node.history == "deep":
                    recorded = tuple(n for n in active if n.type in ("atomic", "final") and n.is_descendant_of(exiting))
                else:
                    recorded = tuple(n for n in active if n.parent is exiting)
                if updates is None:
                    updates = []
                updates.append((history_node.id, recorded))
        for exiting in to_exit:
            stops = tuple(Action(type="xstate.stopChild", fields={"actorRef": inv.id}) for inv in exiting.invoke)
            exits.append((exiting, (*exiting.exit, *stops)))
            del active[exiting]
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
        actions: list[Action] = list(entering.entry)
        sync_snapshot = any(t.kind == "invoke.onSnapshot" for t in entering.model.transitions)
        for invoke in entering.invoke:
            fields: dict[str, object] = {"src": invoke.src, "id": invoke.id, "systemId": invoke.system_id,
                                         "syncSnapshot": sync_snapshot}
            if invoke.has_input:
                fields["input"] = invoke.input
            actions.append(Action(type="xstate.spawnChild", fields=fields))
        if entering in for_default_entry:
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
        entries.append(EntryStep(entering, tuple(actions), tuple(inv.id for inv in entering.invoke), final))
    same = len(nodes) == len(active) and all(node in active for node in nodes)
    return MicrostepPlan(
        filtered=tuple(filtered),
        exits=tuple(exits),
        history_updates=tuple(updates) if updates is not None else None,
        transition_actions=tuple(action for t in filtered for action in t.actions),
        entries=tuple(entries),
        next_nodes=tuple(active),
        same_nodes=same,
    )
