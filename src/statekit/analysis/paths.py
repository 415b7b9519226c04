"""Shortest and simple paths through a machine, as `@xstate/graph` 3.0.4 finds them.

The traversal follows `getAdjacencyMap`, `getShortestPaths` and `getSimplePaths` of
`@xstate/graph` (also `xstate/graph`) step for step, so the reachable states, the path
lengths, the simple path sets and even the order of the paths are XState's:

- A state is a snapshot, identified by `serializeSnapshot` = `{value, context}` (context
  only when non-empty; see `StateKeys`).
- The events tried in a state are `getAllOwnEventDescriptors(snapshot)` sent as bare
  `{type}` (wildcard descriptors and `xstate.after.*` types included), unless `events` is
  given: then exactly those events are tried in every state, as XState does when the
  `events` option is an array.
- The traversal is breadth first over every (state, event) pair; exploring more than `limit`
  pairs fails with "Traversal limit exceeded" (XState counts the start as one more iteration
  and throws when its count passes `limit` + 1, which is the same thing).
- A path's steps are `[{state: start, event: xstate.init}, {state: reached, event}, ...]`:
  each step's `state` is the snapshot the step's event led to (XState's `alterPath`), and
  `weight` is the number of events.

The algorithms differ from XState's only where the result cannot: simple paths are found
by one depth-first search from the start instead of one search per target state, which
gives the same paths in the same order (a per-target search is the full search with the
subtrees below the target cut off).
"""

from __future__ import annotations

import copy
import json
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from statekit.analysis.budget import (
    CHECK_EVERY,
    TRUNCATION_MESSAGES,
    Budget,
    TruncationReason,
    collector_paused,
)
from statekit.analysis.implemented import ImplementedMachine, require_implemented
from statekit.analysis.paths_step import Moved, PureSteps
from statekit.analysis.paths_trace import initial_transitions, step_transitions
from statekit.analysis.simulate import ENGINE_INFO, build_simulation_machine
from statekit.analysis.structural import eventless_guards, structural_model
from statekit.budget import BudgetStop
from statekit.engine.algorithm import WILDCARD
from statekit.engine.api import initial_transition, restore_snapshot, transition
from statekit.engine.evaluation import plain_json
from statekit.engine.machine import Machine, Node, RuntimeTransition
from statekit.engine.snapshot import Snapshot
from statekit.errors import EngineError, MachineDefinitionError, ToolError
from statekit.model.core import MachineModel, Transition
from statekit.model.jsorder import js_keys

Algorithm = Literal["shortest", "simple"]
ALGORITHMS: tuple[Algorithm, ...] = ("shortest", "simple")

#: Paths returned per call; the others are only counted (`totalCount`, `truncated`).
MAX_RETURNED_PATHS = 5
#: Traversal iterations allowed when `limit` is not given (XState's default is unbounded,
#: which never ends on a machine whose context grows without bound).
DEFAULT_LIMIT = 100_000
#: The largest `limit` accepted.
MAX_LIMIT = 1_000_000
#: Simple paths enumerated at most; their number grows exponentially with the graph's cycles.
MAX_SIMPLE_PATHS = 1_000_000
#: Microsteps one step may take when the machine sets no `options.maxIterations`: XState's
#: default is unbounded, and an eventless cycle would then never return.
DEFAULT_MAX_ITERATIONS = 10_000
GRAPH_REFERENCE = "@xstate/graph@3.0.4"
INIT_EVENT: dict[str, Any] = {"type": "xstate.init"}

Event = Mapping[str, Any]
StateKey = tuple[frozenset[Node], str | None]


class Edge(NamedTuple):
    """One explored (state, event) pair: the event's serialisation, the event, the next state."""

    event_key: str
    event: Event
    target: int
    #: The transitions the step took, when that is known without replaying it (a pure step,
    #: see `paths_step`: nothing eventless or raised follows); None: replay it for coverage.
    taken: Sequence[RuntimeTransition] | None = None


@dataclass
class StateGraph:
    """The adjacency map: states in discovery order (index 0 is the start) and their edges."""

    states: list[Snapshot] = field(default_factory=list)
    edges: list[list[Edge]] = field(default_factory=list)
    iterations: int = 0
    #: Why the traversal stopped before the graph was complete, if it did.
    truncated: TruncationReason | None = None


class TraversalFailed(Exception):
    """The machine threw while being explored (an implementation or inline code failed)."""

    def __init__(self, event: Event, snapshot: Snapshot, error: EngineError) -> None:
        super().__init__(str(error))
        self.event = event
        self.snapshot = snapshot
        self.error = error


# -- event enumeration --------------------------------------------------------------------


def own_events(node: Node) -> list[str]:
    """XState's `StateNode.ownEvents`: descriptors with a transition that is not forbidden.

    A forbidden transition has no target, no actions and no `reenter`. The order is
    `Object.keys` order of the transitions map (integer-like descriptors first).
    """
    transitions = node.transitions
    found: list[str] = []
    for descriptor in js_keys(transitions):
        for candidate in transitions[descriptor]:
            if candidate.target is not None or candidate.actions or candidate.reenter:
                found.append(descriptor)
                break
    return found


class EventEnumerator:
    """`getAllOwnEventDescriptors(snapshot)` as bare `{type}` events, cached per active set."""

    def __init__(self) -> None:
        self._by_node: dict[Node, list[tuple[str, Event]]] = {}
        self._by_nodes: dict[tuple[Node, ...], list[tuple[str, Event]]] = {}
        #: One `(descriptor, {type: descriptor})` pair per descriptor, shared by every state
        #: (the traversal and the engine only read events; a path copies them).
        self._pairs: dict[str, tuple[str, Event]] = {}

    def _node_events(self, node: Node) -> list[tuple[str, Event]]:
        events = self._by_node.get(node)
        if events is None:
            pairs = self._pairs
            events = []
            for descriptor in own_events(node):
                pair = pairs.get(descriptor)
                if pair is None:
                    # The serialised event `{"type": d}` is a function of d, so d itself is the key.
                    pair = pairs[descriptor] = (descriptor, {"type": descriptor})
                events.append(pair)
            self._by_node[node] = events
        return events

    def descriptors(self, snapshot: Snapshot) -> list[str]:
        """The unique own event descriptors of the active nodes, in `_nodes` order."""
        return [descriptor for descriptor, _event in self(snapshot)]

    def __call__(self, snapshot: Snapshot) -> list[tuple[str, Event]]:
        nodes = snapshot.nodes
        cached = self._by_nodes.get(nodes)
        if cached is None:
            seen: dict[str, tuple[str, Event]] = {}
            for node in nodes:
                for pair in self._node_events(node):
                    if pair[0] not in seen:
                        seen[pair[0]] = pair
            cached = self._by_nodes[nodes] = list(seen.values())
        return cached


def given_events(events: Sequence[Event]) -> Callable[[Snapshot], list[tuple[str, Event]]]:
    """The same events in every state, keyed by `JSON.stringify(event)`."""
    keyed = [(json.dumps(event, ensure_ascii=False, separators=(",", ":")), event) for event in events]
    return lambda _snapshot: keyed


# -- traversal ----------------------------------------------------------------------------


class StateKeys:
    """`serializeSnapshot` as a hashable key: the active state nodes and the non-empty context.

    XState compares `JSON.stringify({value, context})`. The state value is a function of the
    set of active nodes and determines it (the nodes are the value's nodes and their
    ancestors), so the node set stands in for the value without computing it for every
    snapshot; the context is compared as JSON, like XState does.
    """

    def __init__(self) -> None:
        self._contexts: dict[int, tuple[Any, str]] = {}

    def __call__(self, snapshot: Snapshot) -> StateKey:
        return self.key_of(snapshot.node_set, snapshot.context)

    def key_of(self, node_set: frozenset[Node], context: Any) -> StateKey:
        """The key of a state with these active nodes and this context."""
        if not context:
            return node_set, None
        # Steps that assign nothing share the context object; keep it so its id stays unique.
        cached = self._contexts.get(id(context))
        if cached is None or cached[0] is not context:
            # serializeSnapshot keeps a context with any key, shown as JSON.stringify shows it: a
            # key holding `undefined` is left out, so `{a: undefined}` reads `{}` (yet is not the
            # key-less context, which serializeSnapshot leaves out altogether).
            shown = plain_json(context)
            cached = (context, json.dumps(shown, ensure_ascii=False, separators=(",", ":"), default=str))
            self._contexts[id(context)] = cached
        return node_set, cached[1]


#: Estimated bytes one explored state holds besides its context (snapshot, key, queue entry).
STATE_BYTES = 900
#: Estimated bytes of one explored edge.
EDGE_BYTES = 160


def _wildcard_step(snapshot: Snapshot, event: Event) -> Snapshot:
    """An event of type `*`, as XState's production build (which @xstate/graph runs) takes it.

    XState's development build throws for it; the production build, like @xstate/graph in an
    application, selects the transitions it matches (the `*` descriptors) and goes on.
    """
    next_snapshot, _selected = step_transitions(snapshot, event)
    return next_snapshot


def explore(machine: Machine, start: Snapshot, events_for: Callable[[Snapshot], list[tuple[str, Event]]],
            limit: int, stop_when: Callable[[Snapshot], bool] | None, budget: Budget | None = None) -> StateGraph:
    """`getAdjacencyMap`: breadth first over every (state, event) pair from `start`.

    Where XState throws "Traversal limit exceeded", and wherever the budget runs out, the
    traversal stops and keeps the states expanded so far (`graph.truncated` says why); edges
    to states it never expanded are left out.
    """
    with collector_paused():
        return _explore(machine, start, events_for, limit, stop_when, budget)


def _explore(machine: Machine, start: Snapshot, events_for: Callable[[Snapshot], list[tuple[str, Event]]],
             limit: int, stop_when: Callable[[Snapshot], bool] | None, budget: Budget | None) -> StateGraph:
    clock = (budget or Budget()).start()
    max_states = clock.budget.max_states
    keys = StateKeys()
    pure = PureSteps(machine)
    index_of: dict[StateKey, int] = {}
    pending: list[list[tuple[str, Event, StateKey, Sequence[RuntimeTransition] | None]]] = []
    graph = StateGraph()
    states = graph.states
    # A queued state is a snapshot, or a pure step's `Moved`, built into one only when expanded.
    queue: deque[tuple[Snapshot | Moved, StateKey]] = deque([(start, keys(start))])
    enqueue = queue.append
    pure_step_of = pure.step
    iterations = 0
    while queue:
        if iterations > limit:
            graph.truncated = "limit"
            break
        if iterations % CHECK_EVERY == 0 and iterations:
            graph.truncated = clock.exceeded(len(states))
            if graph.truncated is not None:
                break
        queued, key = queue.popleft()
        iterations += 1
        if key in index_of:
            continue
        if max_states is not None and len(states) >= max_states:
            graph.truncated = "states"
            break
        snapshot = queued if isinstance(queued, Snapshot) else queued.snapshot()
        index_of[key] = len(states)
        states.append(snapshot)
        clock.bytes += STATE_BYTES + (len(key[1]) if key[1] is not None else 0)
        # XState keys the transitions by serialised event: a repeated event keeps its first place.
        outgoing: dict[str, tuple[str, Event, StateKey, Sequence[RuntimeTransition] | None]] = {}
        if stop_when is None or not stop_when(snapshot):
            context = snapshot.context
            for event_key, event in events_for(snapshot):
                step: Snapshot | Moved
                taken: Sequence[RuntimeTransition] | None
                try:
                    pure_step = pure_step_of(snapshot, event)
                    if pure_step is not None:
                        step, taken = pure_step
                    else:
                        taken = None
                        if event.get("type") == WILDCARD:
                            step = _wildcard_step(snapshot, event)
                        else:
                            step, _actions = transition(machine, snapshot, event)
                except EngineError as error:
                    raise TraversalFailed(event, snapshot, error) from None
                except BudgetStop as stop:  # the call's own budget, seen inside the engine
                    graph.truncated = "cancelled" if stop.error.code == "cancelled" else "time"
                    break
                if step is snapshot:
                    next_key = key
                elif isinstance(step, Snapshot):
                    next_key = keys(step)
                else:
                    next_key = (frozenset(step.nodes), None) if not context else keys.key_of(frozenset(step.nodes), context)
                outgoing[event_key] = (event_key, event, next_key, taken)
                enqueue((step, next_key))
            clock.bytes += EDGE_BYTES * len(outgoing)
        pending.append(list(outgoing.values()))
        if graph.truncated is not None:
            break
    graph.iterations = iterations
    make_edge = tuple.__new__  # Edge's own __new__ is a Python function; this builds the same tuple
    graph.edges = [[make_edge(Edge, (event_key, event, index_of[next_key], taken))
                    for event_key, event, next_key, taken in edges if next_key in index_of]
                   for edges in pending]
    return graph


# -- path finding -------------------------------------------------------------------------

PathEdges = tuple[tuple[int, Edge], ...]


@dataclass
class PathSet:
    """Paths found: how many, the first few (as edge lists), and what all of them cover."""

    total: int = 0
    returned: list[tuple[int, PathEdges]] = field(default_factory=list)
    covered_states: set[int] = field(default_factory=set)
    covered_edges: set[tuple[int, int]] = field(default_factory=set)  # (state, edge index)
    #: Why the search stopped before finding every path, if it did.
    truncated: TruncationReason | None = None


def shortest_paths(graph: StateGraph, matches: Sequence[bool], keep: int = MAX_RETURNED_PATHS) -> PathSet:
    """`getShortestPaths`: one path per state, found breadth first (first discovery wins); the first `keep` kept."""
    count = len(graph.states)
    parent: list[tuple[int, int] | None] = [None] * count
    seen = [False] * count
    seen[0] = True
    order = [0]
    for state in order:  # grows while iterating, like XState's `unvisited` set
        for edge_index, edge in enumerate(graph.edges[state]):
            if not seen[edge.target]:
                seen[edge.target] = True
                parent[edge.target] = (state, edge_index)
                order.append(edge.target)
    result = PathSet()
    for target in order:
        if not matches[target]:
            continue
        result.total += 1
        walk: int = target
        chain: list[tuple[int, Edge]] = []
        keep_this = len(result.returned) < keep
        while True:
            newly_covered = walk not in result.covered_states
            result.covered_states.add(walk)
            link = parent[walk]
            if link is None or (not newly_covered and not keep_this):
                break
            source, edge_index = link
            result.covered_edges.add(link)
            if keep_this:
                chain.append((source, graph.edges[source][edge_index]))
            walk = source
        if keep_this:
            result.returned.append((target, tuple(reversed(chain))))
    return result


def simple_paths(graph: StateGraph, matches: Sequence[bool], keep: int = MAX_RETURNED_PATHS,
                 budget: Budget | None = None) -> PathSet:
    """`getSimplePaths`: every path from the start that visits no state twice.

    One depth-first search from the start visits each simple path once, as a prefix; XState
    lists them grouped by their last state, groups in adjacency order, each group in search
    order. Only the groups that can hold one of the first `keep` paths are kept. The search
    stops after `MAX_SIMPLE_PATHS` visits or when the budget's time runs out (`truncated`).
    """
    clock = (budget or Budget()).start()
    count = len(graph.states)
    first_targets = [index for index in range(count) if matches[index]][:keep]
    kept: dict[int, list[PathEdges]] = {target: [] for target in first_targets}
    on_path = [False] * count
    path: list[tuple[int, Edge]] = []
    path_keys: list[tuple[int, int]] = []
    result = PathSet()
    visited = 0

    def enter(state: int) -> bool:
        nonlocal visited
        visited += 1
        on_path[state] = True
        if matches[state]:
            result.total += 1
            group = kept.get(state)
            if group is not None and len(group) < keep:
                group.append(tuple(path))
            return True
        return False

    # A frame: state, next edge index, whether a matching path ends in its subtree.
    stack: list[list[Any]] = [[0, 0, enter(0)]]
    steps = 0
    while stack:
        if visited >= MAX_SIMPLE_PATHS:
            result.truncated = "simplePaths"
            break
        steps += 1
        if steps % CHECK_EVERY == 0:
            result.truncated = clock.exceeded(0)
            if result.truncated is not None:
                break
        frame = stack[-1]
        state, edge_index = frame[0], frame[1]
        edges = graph.edges[state]
        while edge_index < len(edges) and on_path[edges[edge_index].target]:
            edge_index += 1
        if edge_index < len(edges):
            frame[1] = edge_index + 1
            edge = edges[edge_index]
            path.append((state, edge))
            path_keys.append((state, edge_index))
            stack.append([edge.target, 0, enter(edge.target)])
            continue
        stack.pop()
        on_path[state] = False
        if frame[2]:
            result.covered_states.add(state)
            if path_keys:
                result.covered_edges.add(path_keys[-1])
            if stack:
                stack[-1][2] = True
        if path:
            path.pop()
            path_keys.pop()
    for target in first_targets:
        for edges_of_path in kept[target]:
            if len(result.returned) < keep:
                result.returned.append((target, edges_of_path))
    return result


# -- the tool's result --------------------------------------------------------------------


def state_json(snapshot: Snapshot) -> dict[str, Any]:
    """A path state as the tool reports it: `{value, context}` (a copy, never engine data)."""
    return {"value": copy.deepcopy(snapshot.value), "context": plain_json(snapshot.context)}


def path_json(graph: StateGraph, target: int, edges: PathEdges) -> dict[str, Any]:
    """XState's path shape after `alterPath`: the init step, then one step per event."""
    steps = [{"state": state_json(graph.states[0]), "event": dict(INIT_EVENT)}]
    steps.extend({"state": state_json(graph.states[edge.target]), "event": dict(edge.event)} for _source, edge in edges)
    return {"state": state_json(graph.states[target]), "steps": steps, "weight": len(edges)}


def coverage_targets(model: MachineModel) -> tuple[list[str], list[Transition]]:
    """The state nodes that can be active (not the root, not history) and every transition."""
    states = [node.id for node in model.root.walk() if node.parent_id is not None and node.type != "history"]
    transitions = [t for node in model.root.walk() for t in node.transitions]
    return states, transitions


def _ratio(covered: int, total: int) -> dict[str, Any]:
    percent = 100.0 if total == 0 else round(100.0 * covered / total, 1)
    return {"covered": covered, "total": total, "percent": percent}


def coverage(model: MachineModel, graph: StateGraph, found: PathSet, initial_taken: list[Any] | None) -> dict[str, Any]:
    """State-node and transition coverage of every path found (not only the returned ones)."""
    state_ids, transitions = coverage_targets(model)
    active: set[str] = set()
    for state in found.covered_states:
        active.update(node.id for node in graph.states[state].nodes)
    taken: set[int] = set()
    if initial_taken is not None and found.covered_states:
        taken.update(id(t.model) for t in initial_taken if t.model is not None)
    for state, edge_index in found.covered_edges:
        edge = graph.edges[state][edge_index]
        selected = edge.taken
        if selected is None:
            _next, selected = step_transitions(graph.states[state], edge.event)
        taken.update(id(t.model) for t in selected if t.model is not None)
    covered_states = [state_id for state_id in state_ids if state_id in active]
    covered_transitions = [t for t in transitions if id(t) in taken]
    return {
        "states": {**_ratio(len(covered_states), len(state_ids)),
                   "uncovered": [state_id for state_id in state_ids if state_id not in active]},
        "transitions": {**_ratio(len(covered_transitions), len(transitions)),
                        "uncovered": [t.id for t in transitions if id(t) not in taken]},
    }


def state_matcher(machine: Machine, to_state: Any) -> Callable[[Snapshot], bool]:
    """`toState` as a predicate: `#id` is an active node, anything else `snapshot.matches`."""
    if isinstance(to_state, str) and to_state.startswith("#"):
        node = machine.id_map.get(to_state[1:])
        if node is None:
            raise ToolError("invalid_input", f"toState: no state node has the id {to_state[1:]!r}")
        return lambda snapshot: node in snapshot.node_set
    if not isinstance(to_state, str | dict) or not to_state:
        raise ToolError("invalid_input", "toState must be a state value (a dotted path or an object) or '#<state id>'")
    try:
        machine.state_path_nodes(to_state)
    except (MachineDefinitionError, KeyError, TypeError, AttributeError) as error:
        raise ToolError("invalid_input", f"toState {json.dumps(to_state)} is not a state of this machine: {error}") from None
    return lambda snapshot: snapshot.matches(to_state)


def start_snapshot(machine: Machine, initial: Snapshot, from_state: Any) -> Snapshot:
    """`fromState`: the state value resolved with the initial context, as XState's `resolveState`."""
    if not isinstance(from_state, str | dict) or not from_state:
        raise ToolError("invalid_input", "fromState must be a state value (a dotted path or an object)")
    try:
        return restore_snapshot(machine, {"value": from_state, "context": initial.context})
    except (MachineDefinitionError, KeyError, TypeError, AttributeError) as error:
        raise ToolError("invalid_input", f"fromState {json.dumps(from_state)} is not a state of this machine: {error}") from None


@dataclass
class Exploration:
    """A machine explored from its start: the graph and which states `toState` matches.

    `model` is the machine traversed: the given one, or its structure when its inline code
    could not run (`normalization["mode"] == "structural"`).
    """

    model: MachineModel
    machine: Machine
    normalization: dict[str, Any]
    graph: StateGraph
    matches: list[bool]
    limit: int


class _CannotRun(Exception):
    """The machine (as given) fails on start or while being explored."""

    def __init__(self, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


def _explore_as(implemented: ImplementedMachine, events: Sequence[Event] | None, to_state: Any, from_state: Any,
                limit: int, guards: Mapping[str, bool] | None, input_value: Any,
                budget: Budget | None) -> tuple[Machine, dict[str, Any], StateGraph, list[bool]]:
    machine, normalization = build_simulation_machine(implemented, guards)
    if machine.max_iterations is None:
        machine.max_iterations = DEFAULT_MAX_ITERATIONS
    initial, _actions = initial_transition(machine, input_value)
    if initial.status == "error":
        raise _CannotRun(f"the machine fails on start: {initial.error}")
    matcher = state_matcher(machine, to_state) if to_state is not None else None
    start = start_snapshot(machine, initial, from_state) if from_state is not None else initial
    events_for = given_events(events) if events is not None else EventEnumerator()
    try:
        graph = explore(machine, start, events_for, limit, matcher, budget)
    except TraversalFailed as failure:
        raise _CannotRun(
            f"the machine threw on event '{failure.event.get('type')}' in state "
            f"{json.dumps(failure.snapshot.value)}: {failure.error}",
            {"state": failure.snapshot.value, "event": dict(failure.event)},
        ) from None
    matches = [True] * len(graph.states) if matcher is None else [matcher(s) for s in graph.states]
    return machine, normalization, graph, matches


def explore_model(
    implemented: ImplementedMachine,
    events: Sequence[Event] | None = None,
    to_state: Any = None,
    from_state: Any = None,
    limit: int | None = None,
    guards: Mapping[str, bool] | None = None,
    input_value: Any = None,
    budget: Budget | None = None,
) -> Exploration:
    """`getAdjacencyMap` for the tool's arguments; bad arguments raise `invalid_input`.

    The machine runs natively with its implementations (inline code and the source's
    implementations in the sandbox). When that fails and the machine
    has inline code, its structure is traversed instead (see `structural.py`): the
    normalization says so, why, and what was left out. A machine without code that throws,
    or whose structure throws too, is `invalid_input`.
    """
    with collector_paused():
        return _explore_model(require_implemented(implemented, "explore_model"), events, to_state, from_state, limit,
                              guards, input_value, budget)


def _explore_model(implemented: ImplementedMachine, events: Sequence[Event] | None, to_state: Any, from_state: Any,
                   limit: int | None, guards: Mapping[str, bool] | None, input_value: Any,
                   budget: Budget | None) -> Exploration:
    effective_limit = DEFAULT_LIMIT if limit is None else limit
    model = implemented.model
    try:
        machine, normalization, graph, matches = _explore_as(
            implemented, events, to_state, from_state, effective_limit, guards, input_value, budget)
        return Exploration(model, machine, {**normalization, "mode": "native"}, graph, matches, effective_limit)
    except _CannotRun as native_failure:
        structure, changes = structural_model(model)
        if not changes.has_code and not implemented.implementations:
            raise ToolError("invalid_input", native_failure.message, native_failure.details) from None
        reason = native_failure.message
    assumed_false: list[str] = []
    bare_structure = implemented.without_implementations(structure)
    try:
        machine, normalization, graph, matches = _explore_as(
            bare_structure, events, to_state, from_state, effective_limit, guards, None, budget)
    except _CannotRun as failure:
        # Guards assumed true can make eventless transitions chase each other for ever; with
        # the guards of `always` transitions the caller did not set assumed false, it settles.
        assumed_false = [name for name in eventless_guards(structure) if name not in (guards or {})]
        if not assumed_false:
            raise ToolError("invalid_input", f"{reason}; its structure without the inline code fails too: "
                            f"{failure.message}", failure.details) from None
        try:
            machine, normalization, graph, matches = _explore_as(
                bare_structure, events, to_state, from_state, effective_limit,
                {**dict.fromkeys(assumed_false, False), **(guards or {})}, None, budget)
        except _CannotRun as second:
            raise ToolError("invalid_input", f"{reason}; its structure without the inline code fails too: "
                            f"{failure.message}; and with the guards of eventless transitions assumed false: "
                            f"{second.message}", second.details) from None
        reason = (f"{reason}; with every guard assumed true the structure fails ({failure.message}), so the guards "
                  f"of eventless transitions were assumed false: {', '.join(assumed_false)}")
    normalization = {
        **normalization, "mode": "structural",
        "reason": f"inline code cannot run natively ({reason}): the structure was traversed, guards assumed, "
                  "context and data actions left out",
        **changes.to_json(),
        "eventlessGuardsAssumedFalse": assumed_false,
    }
    return Exploration(structure, machine, normalization, graph, matches, effective_limit)


def generate_graph_paths(
    implemented: ImplementedMachine,
    algorithm: Algorithm,
    events: Sequence[Event] | None = None,
    to_state: Any = None,
    from_state: Any = None,
    limit: int | None = None,
    guards: Mapping[str, bool] | None = None,
    input_value: Any = None,
    max_paths: int = MAX_RETURNED_PATHS,
    budget: Budget | None = None,
) -> dict[str, Any]:
    """Paths through the machine (with its implementations) as `@xstate/graph` finds them: `{paths, coverage, totalCount, truncated, execution}`.

    The first `max_paths` paths are returned (the tool always returns at most five).
    """
    with collector_paused():
        return _generate_graph_paths(implemented, algorithm, events, to_state, from_state, limit, guards, input_value,
                                     max_paths, budget)


def _generate_graph_paths(implemented: ImplementedMachine, algorithm: Algorithm, events: Sequence[Event] | None,
                          to_state: Any, from_state: Any, limit: int | None, guards: Mapping[str, bool] | None, input_value: Any,
                          max_paths: int, budget: Budget | None) -> dict[str, Any]:
    if algorithm not in ALGORITHMS:
        raise ToolError("invalid_input", f"algorithm must be one of {', '.join(ALGORITHMS)}; got {algorithm!r}")
    explored = explore_model(implemented, events, to_state, from_state, limit, guards, input_value, budget)
    graph = explored.graph
    traversed = explored.model
    if algorithm == "shortest":
        found = shortest_paths(graph, explored.matches, max_paths)
    else:
        found = simple_paths(graph, explored.matches, max_paths, budget)
    initial_taken: list[Any] | None = None
    if from_state is None:
        native_input = input_value if explored.normalization["mode"] == "native" else None
        # The context the start's eventless guards read: the factory's, run on the input, as
        # the traversal's start had it (a factory left as {} failed on `context.name.length`).
        context = explored.machine.evaluator.initial_context(copy.deepcopy(traversed.context), native_input)
        explored.machine.evaluator.take_spawned()
        _snapshot, initial_taken = initial_transitions(explored.machine, context, native_input)
    reason = graph.truncated or found.truncated or ("paths" if found.total > len(found.returned) else None)
    normalization = {key: value for key, value in explored.normalization.items() if key != "format"}
    if graph.truncated or found.truncated:
        cut = graph.truncated or found.truncated
        assert cut is not None
        normalization["truncation"] = (
            f"{TRUNCATION_MESSAGES[cut]}: the paths are those of the {len(graph.states)} states explored")
    return {
        "paths": [path_json(graph, target, edges) for target, edges in found.returned],
        "coverage": coverage(traversed, graph, found, initial_taken),
        "totalCount": found.total,
        "truncated": reason is not None,
        "truncatedReason": reason,
        "normalization": normalization,
        "execution": {
            **ENGINE_INFO,
            "graphReference": GRAPH_REFERENCE,
            "algorithm": algorithm,
            "events": "given" if events is not None else "machine",
            "statesExplored": len(graph.states),
            "transitionsExplored": sum(len(edges) for edges in graph.edges),
            "iterations": graph.iterations,
            "limit": explored.limit,
            "assumedGuards": explored.normalization["assumedGuards"],
            "assumedActors": explored.normalization["assumedActors"],
        },
    }
