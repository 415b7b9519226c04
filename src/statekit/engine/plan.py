"""Microstep plans: the structural half of a microstep, computed once and reused.

Which states a set of transitions exits and enters, in what order, with which actions, what
history it records and which done events entering final states raises depend only on the
transitions, the active nodes (in order) and, for transitions into history states, the
recorded history. None of it depends on context or the event. So the engine computes a
plan with XState's own set functions the first time and replays it afterwards; replaying
resolves the actions against the live snapshot, which is where context and events matter.

What is cached, and why each is sound (every cache is bounded, and cleared when full):

- `Machine.plans`, per (transitions, active nodes in order, recorded history when the machine
  has history states, initial or not): the whole plan, by the argument above. A plan a
  shortcut below built is admitted only while the cache is small (`ADMIT_CHEAP_BELOW`).
- `RuntimeTransition.entry_template`, per transition: its entry set and entry steps, when
  computing them read no recorded history and entered no final state; then they depend on
  the transition and the tree only (`entry_template`).
- `Machine.local_parts`, per (transition with a template, active nodes below its domain in
  order): its exit steps, recorded history, and which entered states are new. The exit set
  is the domain's active descendants (and the domain itself for a re-entering transition
  whose source it is); history records active states below exited ones; entered states lie
  in the domain's subtree, and the domain is active. So nothing outside the domain's subtree
  enters the part, and it holds in every configuration with the same nodes below the domain.
- Several transitions with unrelated domains take their templates without a cache (see
  `_unrelated_templates`).

tests/engine/test_plan_shortcuts.py checks every shortcut against `general_plan` on every
microstep of the oracle corpus, the generated machines and the benchmark's wide walk.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from statekit.engine.machine import _HISTORY_DEPENDENT, _UNKNOWN, Node, RuntimeTransition
from statekit.model.core import Action

HistoryValue = Mapping[str, tuple[Node, ...]]

#: Plans kept per machine before the cache is cleared (bounds memory on huge state spaces).
MAX_PLANS = 8192
#: Results that are cheap to compute again (a shortcut plan, a selection by the lone handler)
#: are cached only while their cache holds fewer entries than this. A machine with few
#: configurations gets them all; one with thousands (a wide parallel machine) does not fill
#: memory, and the cyclic garbage collector's heap, with results it may never meet again:
#: measured on the benchmark's wide walk, full collections over such caches cost more than
#: computing the results again.
ADMIT_CHEAP_BELOW = 1024


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
    #: Whether what is active below `value_root` afterwards is a proper configuration (with
    #: `value_root` None: below each domain of several transitions with unrelated domains).
    part_is_proper: bool = False
    #: Whether a shortcut built it (cheap to build again: see `ADMIT_CHEAP_BELOW`).
    shortcut: bool = False


def build_plan(transitions: list[RuntimeTransition], nodes: tuple[Node, ...], history: HistoryValue,
               is_initial: bool) -> MicrostepPlan:
    """Compute the plan with XState's set algorithms (see `algorithm.py`), or a shorter road
    with the same result when every transition's entry set is fixed (`entry_template`):

    - one such transition: its exit set and what follows from it depend only on the active
      nodes below its domain, so that part is computed once per (transition, those nodes)
      (`_local_part`) and the whole plan assembled from it;
    - several, with pairwise unrelated domains (neither is the other or below it): their exit
      sets are disjoint, so none conflicts with another and each enters its template alone
      (`_plan_with_templates`).
    """
    if not is_initial:
        if len(transitions) == 1:
            template = transitions[0].entry_template
            if template is _UNKNOWN:
                template = entry_template(transitions[0])
            if template is not None:
                return _plan_with_template(transitions[0], template, nodes, history)
        else:
            unrelated = _unrelated_templates(transitions, history)
            if unrelated is not None:
                return _plan_with_templates(transitions, unrelated, nodes, history)
    return general_plan(transitions, nodes, history, is_initial)


def general_plan(transitions: list[RuntimeTransition], nodes: tuple[Node, ...], history: HistoryValue,
                 is_initial: bool) -> MicrostepPlan:
    """The plan by XState's set algorithms alone (`removeConflictingTransitions`,
    `computeExitSet`, `computeEntrySet`): what every shorter road must equal."""
    from statekit.engine.algorithm import (
        EntrySet,
        compute_entry_set,
        compute_exit_set,
        remove_conflicting_transitions,
    )

    active: dict[Node, None] = dict.fromkeys(nodes)
    filtered = remove_conflicting_transitions(transitions, active, history)
    exits: ExitSteps = ()
    updates: HistoryUpdates = None
    if not is_initial:
        exits, updates = _exit_steps(compute_exit_set(filtered, active, history), active)
        for exiting, _ in exits:
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


def _exit_steps(to_exit: list[Node], active: Iterable[Node]) -> tuple[ExitSteps, HistoryUpdates]:
    """The exit set `computeExitSet` gave, in exit order, with each state's exit actions, and the
    history exiting records: for each history child of an exited state, its active atomic
    descendants (deep) or active children (shallow), in `active` order. (Only the active
    nodes below the exited states matter, so `active` may be just those.)"""
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
    exits = tuple((exiting, exiting.exit_actions) for exiting in to_exit)
    return exits, tuple(updates) if updates is not None else None


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


@dataclass(frozen=True, slots=True)
class LocalPart:
    """What one transition with a fixed entry set does, given the active nodes below its domain."""

    exits: ExitSteps
    history_updates: HistoryUpdates
    exited: frozenset[Node]
    #: The entered states not active after the exits, in entry order: appended to the node list.
    appended: tuple[Node, ...]
    #: Whether the active set afterwards is the one before (every exited state entered again).
    same_nodes: bool


def _plan_with_template(transition: RuntimeTransition, template: EntryTemplate, nodes: tuple[Node, ...],
                        history: HistoryValue) -> MicrostepPlan:
    """`build_plan` for one transition with a fixed entry set: its `LocalPart` (cached per
    machine by the transition and the active nodes below its domain), then the next node list.

    The exit set is `computeExitSet` for one transition: the domain when a re-entering
    transition's source is its domain, then every active descendant of the domain. XState's
    next node list is the active one without the exited states, then the entered states that
    were not already active; only the active nodes below the domain (and the domain, which is
    active: it is the source or one of its ancestors) decide which those are.
    """
    if not transition.target:  # targetless: nothing exits or enters (its template is empty)
        return MicrostepPlan(filtered=(transition,), exits=(), history_updates=None, entries=(),
                             next_nodes=nodes, same_nodes=True, shortcut=True)
    value_root: Node | None = None
    domain: Node | None = transition.domain  # memoised by `entry_template` (no history target)
    if domain is _UNKNOWN or domain is _HISTORY_DEPENDENT:
        from statekit.engine.algorithm import transition_domain

        domain = transition_domain(transition, history)
    if domain is None:
        local = nodes
    else:
        below = domain.descendants
        local = tuple([node for node in nodes if node in below])
        if not (transition.reenter and transition.source is domain) and domain.type in ("compound", "parallel"):
            value_root = domain  # it stays active
    machine = transition.source.machine
    key = (transition, local)
    part = machine.local_parts.get(key)
    if part is None:
        part = _local_part(transition, template, domain, local)
        if len(machine.local_parts) >= MAX_PLANS:
            machine.local_parts.clear()
        machine.local_parts[key] = part
    exited = part.exited
    if exited or part.appended:
        next_nodes = (*[node for node in nodes if node not in exited], *part.appended)
    else:
        next_nodes = nodes
    return MicrostepPlan(
        filtered=(transition,),
        exits=part.exits,
        history_updates=part.history_updates,
        entries=template.entries,
        next_nodes=next_nodes,
        same_nodes=part.same_nodes,
        value_root=value_root,
        part_is_proper=template.proper_below_domain,
        shortcut=True,
    )


def _local_part(transition: RuntimeTransition, template: EntryTemplate, domain: Node | None,
                local: tuple[Node, ...]) -> LocalPart:
    to_exit = list(local)
    if domain is not None and transition.reenter and transition.source is domain:
        to_exit.insert(0, domain)
    exits, updates = _exit_steps(to_exit, local)
    exited = frozenset(to_exit)
    # Active after the exits, among the nodes an entry can be: the domain and what is below it.
    remaining = {node for node in local if node not in exited}
    if domain is not None and domain not in exited:
        remaining.add(domain)
    appended = tuple(entry.node for entry in template.entries if entry.node not in remaining)
    reentered = sum(1 for entry in template.entries if entry.node in exited)
    added = any(entry.node not in exited for entry in template.entries if entry.node not in remaining)
    return LocalPart(exits, updates, exited, appended, same_nodes=not added and reentered == len(exited))


def _unrelated_templates(transitions: list[RuntimeTransition],
                         history: HistoryValue) -> list[tuple[EntryTemplate, Node]] | None:
    """Each transition's entry template and domain, when every transition has a target, a fixed
    entry set and a domain unrelated to every other's; else None.

    Unrelated domains have disjoint subtrees, and a transition's exit and entry sets lie in its
    domain's subtree: no exit sets meet (so `removeConflictingTransitions` keeps them all, in
    order), and no entry computation can see another's states (its parallel states' regions
    are in its own subtree), so the joint entry set is the union of the templates.
    """
    from statekit.engine.algorithm import transition_domain

    found: list[tuple[EntryTemplate, Node]] = []
    for transition in transitions:
        template = entry_template(transition) if transition.target else None
        if template is None:
            return None
        domain = transition_domain(transition, history)
        if domain is None:
            return None
        for _, other in found:
            if other is domain or other in domain.ancestor_set or domain in other.ancestor_set:
                return None
        found.append((template, domain))
    return found


def _plan_with_templates(transitions: list[RuntimeTransition], unrelated: list[tuple[EntryTemplate, Node]],
                         nodes: tuple[Node, ...], history: HistoryValue) -> MicrostepPlan:
    """`build_plan` for several transitions with fixed entry sets and unrelated domains."""
    to_exit: list[Node] = []
    for transition, (_, domain) in zip(transitions, unrelated, strict=True):
        if transition.reenter and transition.source is domain:
            to_exit.append(domain)
        below = domain.descendants
        to_exit.extend(node for node in nodes if node in below)
    exits, updates = _exit_steps(to_exit, nodes)
    active: dict[Node, None] = dict.fromkeys(nodes)
    for exiting in to_exit:
        del active[exiting]
    entries = sorted((entry for template, _ in unrelated for entry in template.entries), key=lambda e: e.node.order)
    for entry in entries:
        active[entry.node] = None
    return MicrostepPlan(
        filtered=tuple(transitions),
        exits=exits,
        history_updates=updates,
        entries=tuple(entries),
        next_nodes=tuple(active),
        same_nodes=_same_nodes(nodes, active),
        part_is_proper=all(template.proper_below_domain for template, _ in unrelated),
        shortcut=True,
    )
