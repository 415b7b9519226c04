"""The traversal's cheap step: an event that only moves the machine between configurations.

`explore` sends every (state, event) pair through the engine's `transition()`. On machines
of about 1,000 states nearly every pair takes a transition never taken before, so the engine
builds a fresh microstep plan each time (exit set, entry set, entry actions, done events),
and that is most of the traversal's time. Most of those steps run nothing: the selected
transition has no actions, it moves from one atomic state to another below a compound
domain, nothing it exits or enters has actions, invocations, history or a final state, and
the machine has no eventless transitions. For such a step the engine's result is fixed by
the structure alone: the same context, children and history, the active nodes with the
domain's active descendants removed and the entered chain appended, in XState's `_nodes`
order. `PureSteps` computes exactly that and nothing else, and says `None` for every other
step, which then goes through `transition()` as before.

The result is the engine's, object for object: the step returns the very snapshot the engine
would return when the configuration does not change, and otherwise the node list, history,
context and value the engine's `microstep` gives (see `_plan_with_template` and `microstep`
in the engine). tests/analysis/test_paths.py checks it against `transition()` on every edge
of the paths corpus and of generated machines, so a change in the engine that is not made
here fails a test.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from statekit.engine.algorithm import (
    WILDCARD,
    XSTATE_INIT,
    XSTATE_STOP,
    node_next,
    select_transitions,
)
from statekit.engine.machine import Machine, Node, RuntimeTransition
from statekit.engine.snapshot import Snapshot

#: Event types the engine's macrostep treats specially (never a cheap step).
_SPECIAL_TYPES = frozenset({WILDCARD, XSTATE_INIT, XSTATE_STOP})
_ERROR_PREFIX = "xstate.error.actor"
_NONE: list[RuntimeTransition] = []


class Moved:
    """A cheap step's result when the configuration changes: built into a snapshot only if the
    traversal keeps it (most steps reach a state already found)."""

    __slots__ = ("domain", "entered", "nodes", "source")

    def __init__(self, source: Snapshot, nodes: tuple[Node, ...], domain: Node, entered: tuple[Node, ...]) -> None:
        self.source = source
        self.nodes = nodes
        self.domain = domain
        #: The states entered (all below `domain`; every active one below it was exited).
        self.entered = entered

    def snapshot(self) -> Snapshot:
        """The engine's next snapshot: `microstep`'s clone with the new nodes, its value derived
        from the source's below the domain (which stays active; what it enters is proper)."""
        result = self.source.clone(nodes=self.nodes, history=self.source.history)
        result.derive(self.source, self.domain, True)
        return result


class PureSteps:
    """Steps of one machine that run no code beyond guards (see the module's docstring)."""

    def __init__(self, machine: Machine) -> None:
        self.machine = machine
        #: An eventless transition may follow any step: then every step is the engine's.
        self.enabled = not machine.has_always
        #: With wildcard descriptors, selection walks the state value: the engine's road only.
        self._wildcards = machine.root.wildcard_below
        self._moves: dict[RuntimeTransition, _Move] = {}
        #: Per domain, the states below it whose exit runs something (exit actions, stopping an
        #: invocation) or records history.
        self._loud_below: dict[Node, frozenset[Node]] = {}
        #: Per event type, whether the macrostep takes it the ordinary way (see `_SPECIAL_TYPES`).
        self._ordinary: dict[Any, bool] = {}
        #: The snapshot whose handlers `_handlers` holds: event type -> the one active node
        #: declaring it (None: several do).
        self._handlers_of: Snapshot | None = None
        self._handlers: dict[str, Node | None] | None = None
        #: `node_next`'s flag that a guard ran (the engine's cache needs it; this has none).
        self._probe = [False]

    def step(self, snapshot: Snapshot, event: Mapping[str, Any]) -> tuple[Snapshot | Moved, list[RuntimeTransition]] | None:
        """The next state when the step is pure, and the transitions it took: `snapshot` itself
        when nothing changes, a `Moved` when the configuration does; None: take the engine's
        `transition()`.

        Guards are evaluated as the engine's selection evaluates them (and raise as it does).
        """
        if not self.enabled or snapshot.status != "active":
            return None
        event_type: str = event.get("type")  # type: ignore[assignment]  # checked just below
        ordinary = self._ordinary.get(event_type)
        if ordinary is None:
            ordinary = self._ordinary[event_type] = isinstance(event_type, str) and not (
                event_type in _SPECIAL_TYPES or event_type.startswith(_ERROR_PREFIX))
        if not ordinary:
            return None
        # The engine's `select_transitions` without its cache (a traversal meets each
        # (configuration, event) pair once): its lone-handler road, the handlers of a state's
        # events read once for all of them; else the engine's own.
        if snapshot is not self._handlers_of:
            self._read_handlers(snapshot)
        handlers = self._handlers
        if handlers is None:
            transitions = select_transitions(snapshot, event)
        elif event_type not in handlers:
            return snapshot, _NONE  # nothing selected: the macrostep returns the snapshot it was given
        else:
            handler = handlers[event_type]
            if handler is None:
                transitions = select_transitions(snapshot, event)
            else:
                transitions = node_next(handler, snapshot, event, self._probe) or _NONE
        if not transitions:
            return snapshot, transitions  # nothing selected: the macrostep returns the snapshot it was given
        if len(transitions) != 1:
            return None
        transition = transitions[0]
        try:
            move = self._moves[transition]
        except KeyError:
            move = self._moves[transition] = _pure_move(transition)
        if move is None:
            return None
        domain, entered, entered_set = move
        if domain is None:
            return snapshot, transitions  # nothing exits or enters, and nothing runs
        nodes = snapshot.nodes
        exited = domain.descendants.intersection(nodes)
        loud = self._loud_below.get(domain)
        if loud is None:
            loud = self._loud_below[domain] = frozenset(
                node for node in domain.descendants if node.exit_actions or node.history_children)
        if loud and not loud.isdisjoint(exited):
            return None  # exiting runs actions or records history: the engine's plan does that
        # `_plan_with_template`: the exited leave the list, the entered (all below the domain,
        # so none of them stayed) are appended in entry order; nothing changes when the
        # entered are exactly the exited.
        if len(exited) == len(entered) and entered_set.issuperset(exited):
            return snapshot, transitions
        if len(exited) == 1:
            at = nodes.index(next(iter(exited)))
            kept = nodes[:at] + nodes[at + 1:]
        else:
            kept = tuple([node for node in nodes if node not in exited])
        return Moved(snapshot, kept + entered, domain, entered), transitions

    def _read_handlers(self, snapshot: Snapshot) -> None:
        """Event type -> the one active node declaring it (None: several do), or no map at all
        when the engine's walk is needed (wildcards, an improper configuration)."""
        self._handlers_of = snapshot
        if self._wildcards or not snapshot.is_proper():
            self._handlers = None
            return
        handlers: dict[str, Node | None] = {}
        for node in snapshot.nodes:
            for declared in node.transitions:
                handlers[declared] = None if declared in handlers else node
        self._handlers = handlers


#: What one transition does when taken alone and purely: its domain and the states it
#: enters, in entry order and as a set (no domain: it stays where it is); None when it is
#: not such a transition.
_Move = tuple[Node | None, tuple[Node, ...], frozenset[Node]] | None
_STAYS: _Move = (None, (), frozenset())


def _pure_move(transition: RuntimeTransition) -> _Move:
    """The domain and entry chain of `transition` when taking it alone runs nothing.

    That is: one atomic target, not re-entering, whose domain is a compound state above it
    with only compound states in between (so no parallel region is entered by default and
    no initial state is followed), and no entered state has entry actions, invocations or
    (for the target, entered by default) initial actions. XState's `computeEntrySet` then
    enters exactly the target and its ancestors below the domain. An atomic state that
    targets itself without re-entering, and a targetless transition, exit and enter nothing.
    """
    targets = transition.target
    if targets is None:
        return None if transition.actions else _STAYS  # targetless: nothing exits or enters
    if transition.reenter or transition.actions or len(targets) != 1:
        return None
    target = targets[0]
    if target.type != "atomic":
        return None
    source = transition.source
    if target is source:
        return _STAYS
    # `getTransitionDomain` for one target that is not a history state: the source when the
    # target lies below it, else the least common ancestor of both, else the root.
    if source in target.ancestor_set:
        domain = source
    else:
        domain = source.machine.root
        for ancestor in target.ancestors:
            if ancestor in source.ancestor_set:
                domain = ancestor
                break
    if domain.type != "compound":
        return None
    chain: list[Node] = [target]
    for ancestor in target.ancestors:
        if ancestor is domain:
            break
        if ancestor.type != "compound":
            return None
        chain.append(ancestor)
    chain.reverse()  # document order: the outermost first
    for node in chain:
        if node.entry or node.invoke:
            return None
    if target.initial_actions:
        return None
    return domain, tuple(chain), frozenset(chain)
