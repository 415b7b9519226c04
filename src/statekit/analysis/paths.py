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
from array import array
from bisect import bisect_right
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from statekit.analysis.budget import (
    CHECK_EVERY,
    TRUNCATION_MESSAGES,
    Budget,
    TruncationReason,
    collector_paused,
)
from statekit.analysis.implemented import ImplementedMachine, require_implemented
from statekit.analysis.paths_graph import REPLAY, StateGraph, snapshot_fields
from statekit.analysis.paths_step import Moved, PureSteps
from statekit.analysis.paths_trace import initial_transitions, step_transitions
from statekit.analysis.simulate import ENGINE_INFO, build_simulation_machine
from statekit.analysis.structural import eventless_guards, structural_model
from statekit.budget import BudgetStop, charge_output, current_budget
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

#: Paths returned per call unless `max_paths` says otherwise; the others are only counted
#: (`totalCount`, `truncated`).
DEFAULT_MAX_PATHS = 5
#: The largest `max_paths` the tool accepts (the call's output budget may cut the list shorter).
MAX_MAX_PATHS = 10_000
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


#: Event lists `EventEnumerator` keeps (one per configuration: a cache, not a record).
_EVENT_LISTS_KEPT = 256


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
            if len(self._by_nodes) >= _EVENT_LISTS_KEPT:
                # One list per configuration met would keep every configuration's node tuple
                # alive: on a wide machine that is most of a traversal's memory.
                self._by_nodes.clear()
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
            cached = (context, context_json(context))
            self._contexts[id(context)] = cached
        return node_set, cached[1]


def context_json(context: Any) -> str:
    """The context as `serializeSnapshot` shows it.

    serializeSnapshot keeps a context with any key, shown as JSON.stringify shows it: a key
    holding `undefined` is left out, so `{a: undefined}` reads `{}` (yet is not the key-less
    context, which serializeSnapshot leaves out altogether).
    """
    return json.dumps(plain_json(context), ensure_ascii=False, separators=(",", ":"), default=str)


#: Bytes one discovered state costs besides its context (its key, id and index entry, the step
#: that found it, and its record once expanded), measured on 20 parallel toggle regions
#: (tests/analysis/test_exploration_memory.py measures the real figure per explored state).
STATE_BYTES = 250
#: Bytes of one explored edge (three array slots) and its queue entry.
EDGE_BYTES = 16
#: Machines with at most this many state nodes key a state's nodes by a bit mask (at most 64
#: bytes, and a pure step updates it in two operations); larger ones by the sorted positions.
_MASKED_NODES = 512
#: Bytes of the steps kept for discovered states until they are expanded (the others take it
#: again), and the fewest steps kept whatever their size.
_PENDING_BYTES = 256 * 1024
_PENDING_KEPT = 256
#: Queue entries read before the read part of the queue is dropped.
_QUEUE_COMPACT_AT = 1 << 16


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
        return _Explorer(machine, start, budget).run(events_for, limit, stop_when)


class _Explorer:
    """One breadth-first traversal, kept compact (see `paths_graph`).

    XState's queue holds one entry per (state, event) pair, duplicates included, and a state
    is expanded when its first entry is dequeued. Here a state gets its id when first
    discovered (enqueued) and the queue holds ids: the queue being first-in first-out, the
    order of first discovery is the order of first dequeueing, so the ids are XState's order
    and a dequeued id below the count of expanded states is a duplicate. Every dequeued entry
    counts as an iteration, as in XState, for `limit`.

    A state discovered but not yet expanded keeps only its key and the (state, event) that
    discovered it: on a wide machine there are several such states per expanded one, and
    taking that step again when the state is expanded costs less than keeping its snapshot.
    The step's result is kept for as many of them waiting at a time as fit in `_PENDING_BYTES`
    (a step costs about its node tuple), so a narrow machine (a chain, a grid: hundreds
    waiting) never takes a step twice.
    """

    def __init__(self, machine: Machine, start: Snapshot, budget: Budget | None) -> None:
        self.machine = machine
        self.start = start
        self.clock = (budget or Budget()).start()
        self.graph = StateGraph(machine, start)
        self.masked = len(machine.nodes) <= _MASKED_NODES
        #: One bit per state node (positions in `machine.nodes`), when `masked`.
        self.bits: dict[Node, int] = {node: 1 << index for index, node in enumerate(machine.nodes)} if self.masked else {}
        self.pure_step = PureSteps(machine).step
        #: State key -> id. A key is the active nodes' `node_key`, with the context's JSON when
        #: the context is not empty: (node key, json).
        self.ids: dict[Any, int] = {}
        #: Per discovered state, the state and the event id of the step that discovered it.
        self.via_state = array("i")
        self.via_event = array("i")
        #: Discovered, not yet expanded states' steps, while there are few (see the docstring).
        self.pending: dict[int, Snapshot | Moved] = {}
        self.pending_kept = max(_PENDING_KEPT, _PENDING_BYTES // (150 + 8 * len(start.nodes)))
        #: id(context) -> (context, JSON) for the contexts of expanded states (the graph keeps
        #: them alive, so an id stays theirs): most steps keep their state's context.
        self.context_keys: dict[int, tuple[Any, str]] = {}
        #: Per entered chain of a pure step, see `move_mask`; per domain, the mask of all but its
        #: descendants.
        self.move_masks: dict[int, tuple[int, int]] = {}
        self.stays: dict[Node, int] = {}

    def mask_of(self, nodes: Sequence[Node]) -> int:
        bits = self.bits
        mask = 0
        for node in nodes:
            mask |= bits[node]
        return mask

    def node_key(self, nodes: Sequence[Node]) -> Any:
        """The node-set part of a state's key: the bit mask of the nodes on a machine of at
        most `_MASKED_NODES` nodes, else their sorted positions, encoded (a chain of 10,000
        states would otherwise key each state by a 10,000-bit number)."""
        if self.masked:
            return self.mask_of(nodes)
        return self.graph.encode(sorted(nodes, key=self.graph.position))

    def key_of(self, node_key: Any, context: Any) -> Any:
        if not context:
            return node_key
        cached = self.context_keys.get(id(context))
        if cached is not None and cached[0] is context:
            return node_key, cached[1]
        return node_key, context_json(context)

    def discover(self, key: Any, state: int, event: int, step: Snapshot | Moved) -> int:
        """The id of the state with this key, noting it and how it was reached when it is new."""
        found = self.ids.get(key)
        if found is None:
            found = self.ids[key] = len(self.via_state)
            self.via_state.append(state)
            self.via_event.append(event)
            if len(self.pending) < self.pending_kept:
                self.pending[found] = step
            # A context costs its JSON in the key, and about as much again kept in the record.
            self.clock.bytes += STATE_BYTES + (2 * len(key[1]) if type(key) is tuple else 0)
        return found

    def move_mask(self, moved: Moved) -> tuple[int, int]:
        """What a pure step does to the mask: (the mask of what stays, of what it enters), the
        first everything but the domain's descendants. Kept per entered chain (which names its
        domain: the parent of its first state), by the identity of the chain `PureSteps` keeps."""
        stays = self.stays.get(moved.domain)
        if stays is None:
            stays = self.stays[moved.domain] = ~self.mask_of(tuple(moved.domain.descendants))
        masks = self.move_masks[id(moved.entered)] = (stays, self.mask_of(moved.entered))
        return masks

    def step(self, snapshot: Snapshot, event: Event) -> tuple[Snapshot | Moved, Sequence[RuntimeTransition] | None]:
        """The state after `event`, and the transitions taken when known (see `Edge.taken`)."""
        try:
            pure_step = self.pure_step(snapshot, event)
            return pure_step if pure_step is not None else (self.engine_step(snapshot, event), None)
        except EngineError as error:
            raise TraversalFailed(event, snapshot, error) from None

    def engine_step(self, snapshot: Snapshot, event: Event) -> Snapshot:
        """The state after `event` by the engine's `transition()` (raises what it raises)."""
        if event.get("type") == WILDCARD:
            return _wildcard_step(snapshot, event)
        return transition(self.machine, snapshot, event)[0]

    def run(self, events_for: Callable[[Snapshot], list[tuple[str, Event]]], limit: int,
            stop_when: Callable[[Snapshot], bool] | None) -> StateGraph:
        graph = self.graph
        clock = self.clock
        max_states = clock.budget.max_states
        start = self.start
        queue = array("i", [self.discover(self.key_of(self.node_key(start.nodes), start.context), -1, -1, start)])
        enqueue = queue.append
        head = 0
        expanded = 0
        iterations = 0
        via: tuple[int, Snapshot] = (-1, start)  # the last state a step was taken again from
        while head < len(queue):
            if iterations > limit:
                graph.truncated = "limit"
                break
            if iterations % CHECK_EVERY == 0 and iterations:
                graph.truncated = clock.exceeded(expanded)
                if graph.truncated is not None:
                    break
            state = queue[head]
            head += 1
            if head >= _QUEUE_COMPACT_AT and head * 2 >= len(queue):
                del queue[:head]
                head = 0
            iterations += 1
            if state < expanded:
                continue
            if max_states is not None and expanded >= max_states:
                graph.truncated = "states"
                break
            kept = self.pending.pop(state, None)
            if kept is not None:
                snapshot = kept if isinstance(kept, Snapshot) else kept.snapshot()
            else:
                # The step that discovered the state, again (consecutive states often share it).
                parent = self.via_state[state]
                if via[0] != parent:
                    via = (parent, graph.snapshot(parent))
                try:
                    step, _taken = self.step(via[1], graph.events[self.via_event[state]][1])
                except BudgetStop as stop:
                    graph.truncated = "cancelled" if stop.error.code == "cancelled" else "time"
                    break
                snapshot = step if isinstance(step, Snapshot) else step.snapshot()
            graph.add_state(snapshot.nodes, snapshot_fields(snapshot))
            expanded += 1
            # XState keys the transitions by serialised event: a repeated event keeps its first place.
            outgoing: dict[str, tuple[int, int, int]] = {}
            if stop_when is None or not stop_when(snapshot):
                self._expand(snapshot, state, events_for, outgoing, enqueue)
            graph.add_edges(outgoing.values())
            clock.bytes += EDGE_BYTES * len(outgoing)
            if graph.truncated is not None:
                break
        graph.iterations = iterations
        graph.finish(expanded)
        return graph

    def _expand(self, snapshot: Snapshot, state: int, events_for: Callable[[Snapshot], list[tuple[str, Event]]],
                outgoing: dict[str, tuple[int, int, int]], enqueue: Callable[[int], None]) -> None:
        """Try every event in `snapshot` (state `state`): its edges go to `outgoing`, its targets
        to the queue. (The hot loop of a traversal: `step`, `moved_mask` and `discover` inlined
        for the common case.)"""
        graph = self.graph
        context = snapshot.context
        key = self.key_of(self.node_key(snapshot.nodes), context)
        if context:
            self.context_keys[id(context)] = (context, key[1])
        nodes_key = key[0] if context else key
        masked = self.masked
        ids = self.ids
        move_masks = self.move_masks
        pure_step = self.pure_step
        event_ids = graph.event_ids
        for event_key, event in events_for(snapshot):
            event_id = event_ids.get(event_key)
            if event_id is None:
                event_id = graph.event_id(event_key, event)
            try:
                stepped = pure_step(snapshot, event)
                step, taken = stepped if stepped is not None else (self.engine_step(snapshot, event), None)
            except EngineError as error:
                raise TraversalFailed(event, snapshot, error) from None
            except BudgetStop as stop:  # the call's own budget, seen inside the engine
                graph.truncated = "cancelled" if stop.error.code == "cancelled" else "time"
                return
            if step is snapshot:
                target = state
            else:
                if isinstance(step, Snapshot):
                    next_key = self.key_of(self.node_key(step.nodes), step.context)
                else:  # a pure step: the same context, other nodes
                    if masked:
                        masks = move_masks.get(id(step.entered))
                        if masks is None:
                            masks = self.move_mask(step)
                        next_nodes = (nodes_key & masks[0]) | masks[1]
                    else:
                        next_nodes = self.node_key(step.nodes)
                    next_key = next_nodes if not context else (next_nodes, key[1])
                found = ids.get(next_key)
                target = found if found is not None else self.discover(next_key, state, event_id, step)
            outgoing[event_key] = (event_id, target, graph.taken_id(taken))
            enqueue(target)


# -- path finding -------------------------------------------------------------------------

#: A path as the positions of its edges in the graph's edge arrays, from the start.
PathEdges = tuple[int, ...]


@dataclass
class PathSet:
    """Paths found: how many, the first few (as edge positions), and what all of them cover."""

    total: int = 0
    returned: list[tuple[int, PathEdges]] = field(default_factory=list)
    #: Per state, and per edge position, 1 when some path found covers it.
    covered_states: bytearray = field(default_factory=bytearray)
    covered_edges: bytearray = field(default_factory=bytearray)
    #: Why the search stopped before finding every path, if it did.
    truncated: TruncationReason | None = None


def shortest_paths(graph: StateGraph, matches: Sequence[bool], keep: int = DEFAULT_MAX_PATHS) -> PathSet:
    """`getShortestPaths`: one path per state, found breadth first (first discovery wins); the first `keep` kept."""
    count = len(graph)
    starts, targets = graph.edge_start, graph.edge_target
    #: Per state, the position of the edge that discovered it (-1: the start, or not reached).
    parent = array("i", [-1]) * count
    parent_state = array("i", [-1]) * count
    seen = bytearray(count)
    seen[0] = 1
    order = array("i", [0])
    next_in_order = 0
    while next_in_order < len(order):  # grows while read, like XState's `unvisited` set
        state = order[next_in_order]
        next_in_order += 1
        for position in range(starts[state], starts[state + 1]):
            target = targets[position]
            if not seen[target]:
                seen[target] = 1
                parent[target] = position
                parent_state[target] = state
                order.append(target)
    result = PathSet(covered_states=bytearray(count), covered_edges=bytearray(graph.edge_count))
    covered_states, covered_edges = result.covered_states, result.covered_edges
    for target in order:
        if not matches[target]:
            continue
        result.total += 1
        walk: int = target
        chain: list[int] = []
        keep_this = len(result.returned) < keep
        while True:
            newly_covered = not covered_states[walk]
            covered_states[walk] = 1
            link = parent[walk]
            if link < 0 or (not newly_covered and not keep_this):
                break
            covered_edges[link] = 1
            if keep_this:
                chain.append(link)
            walk = parent_state[walk]
        if keep_this:
            result.returned.append((target, tuple(reversed(chain))))
    return result


def simple_paths(graph: StateGraph, matches: Sequence[bool], keep: int = DEFAULT_MAX_PATHS,
                 budget: Budget | None = None) -> PathSet:
    """`getSimplePaths`: every path from the start that visits no state twice.

    One depth-first search from the start visits each simple path once, as a prefix; XState
    lists them grouped by their last state, groups in adjacency order, each group in search
    order. Only the paths that can be among the first `keep` are kept (at most 2 x `keep`:
    a group's share shrinks as the groups before it grow). The search stops after
    `MAX_SIMPLE_PATHS` visits or when the budget's time runs out (`truncated`).
    """
    clock = (budget or Budget()).start()
    count = len(graph)
    starts, targets = graph.edge_start, graph.edge_target
    first_targets = [index for index in range(count) if matches[index]][:keep]
    kept: dict[int, list[PathEdges]] = {target: [] for target in first_targets}
    groups = [kept[target] for target in first_targets]
    kept_count = 0
    on_path = bytearray(count)
    path: list[int] = []
    result = PathSet(covered_states=bytearray(count), covered_edges=bytearray(graph.edge_count))
    covered_states, covered_edges = result.covered_states, result.covered_edges
    visited = 0

    def enter(state: int) -> bool:
        nonlocal visited, kept_count
        visited += 1
        on_path[state] = 1
        if matches[state]:
            result.total += 1
            group = kept.get(state)
            if group is not None and len(group) < keep:
                group.append(tuple(path))
                kept_count += 1
                if kept_count > 2 * keep:
                    kept_count = _trim_groups(groups, keep)
            return True
        return False

    # A frame: state, next edge position, its end, whether a matching path ends in its subtree.
    stack: list[list[Any]] = [[0, starts[0], starts[1], enter(0)]]
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
        state, position, end = frame[0], frame[1], frame[2]
        while position < end and on_path[targets[position]]:
            position += 1
        if position < end:
            frame[1] = position + 1
            target = targets[position]
            path.append(position)
            stack.append([target, starts[target], starts[target + 1], enter(target)])
            continue
        stack.pop()
        on_path[state] = 0
        if frame[3]:
            covered_states[state] = 1
            if path:
                covered_edges[path[-1]] = 1
            if stack:
                stack[-1][3] = True
        if path:
            path.pop()
    for group, target in zip(groups, first_targets, strict=True):
        for edges_of_path in group:
            if len(result.returned) < keep:
                result.returned.append((target, edges_of_path))
    return result


def _trim_groups(groups: list[list[PathEdges]], keep: int) -> int:
    """Drop the paths that can no longer be among the first `keep`: those past `keep` counting
    the groups in order (a group before only grows). The number of paths left."""
    room = keep
    for group in groups:
        del group[room:]
        room -= len(group)
    return keep - room


# -- the tool's result --------------------------------------------------------------------


def state_json(snapshot: Snapshot) -> dict[str, Any]:
    """A path state as the tool reports it: `{value, context}` (a copy, never engine data)."""
    return {"value": copy.deepcopy(snapshot.value), "context": plain_json(snapshot.context)}


def path_json(graph: StateGraph, target: int, edges: PathEdges, room: int | None = None) -> dict[str, Any] | None:
    """XState's path shape after `alterPath`: the init step, then one step per event.

    With `room`, None as soon as the path's JSON passes that many bytes: a simple path on a
    wide machine can be 100,000 steps of a 20-key state value each, too large to build only
    to find it does not fit.
    """
    def step(state: int, event: Event) -> dict[str, Any]:
        nonlocal room
        built = {"state": state_json(graph.snapshot(state)), "event": dict(event)}
        if room is not None:
            room -= len(json.dumps(built, ensure_ascii=False, separators=(",", ":"), default=str)) + 1
            if room < 0:
                raise _NoRoom
        return built

    try:
        steps = [step(0, INIT_EVENT)]
        steps.extend(step(graph.edge_target[position], graph.event_at(position)) for position in edges)
    except _NoRoom:
        return None
    return {"state": state_json(graph.snapshot(target)), "steps": steps, "weight": len(edges)}


class _NoRoom(Exception):
    """A path grew past the room it was given (`path_json`)."""


def paths_within_output(graph: StateGraph, returned: Sequence[tuple[int, PathEdges]]) -> list[dict[str, Any]]:
    """The paths as the tool reports them, each charged to the call's output as it is built.

    Within a call, only as many as fit in half of the output budget left (the coverage and
    the rest of the result need room too): the others are left out, as paths past
    `max_paths` are, and the result says so (`truncatedReason: paths`); a large `max_paths`
    gives a shorter list, never `output_too_large`. A path is measured step by step as it is
    built, so one too large is given up before it is whole.
    """
    call = current_budget()
    room = None if call is None or call.max_output_bytes is None else (call.max_output_bytes - call.output_bytes) // 2
    paths: list[dict[str, Any]] = []
    for target, edges in returned:
        path = path_json(graph, target, edges, room)
        if path is None:
            break
        if room is not None:
            size = len(json.dumps(path, ensure_ascii=False, separators=(",", ":"), default=str))
            if size > room:
                break
            room -= size
            charge_output(size)
        paths.append(path)
    return paths


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
    numbers: set[int] = set()
    for state, covered in enumerate(found.covered_states):
        if covered:
            numbers.update(graph.node_numbers(state))
    active = {graph.node_at(number).id for number in numbers}
    taken: set[int] = set()
    if initial_taken is not None and 1 in found.covered_states:
        taken.update(id(t.model) for t in initial_taken if t.model is not None)
    taken_ids: set[int] = set()
    position = found.covered_edges.find(1)
    while position >= 0:
        took = graph.edge_taken[position]
        if took == REPLAY:
            source = bisect_right(graph.edge_start, position) - 1
            _next, selected = step_transitions(graph.snapshot(source), graph.event_at(position))
            taken.update(id(t.model) for t in selected if t.model is not None)
        else:
            taken_ids.add(took)
        position = found.covered_edges.find(1, position + 1)
    for took in taken_ids:
        taken.update(id(t.model) for t in graph.taken[took] if t.model is not None)
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
    model = implemented.runnable_model  # (coverage matches its transitions by identity)
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
    algorithm: Algorithm = "shortest",
    events: Sequence[Event] | None = None,
    to_state: Any = None,
    from_state: Any = None,
    limit: int | None = None,
    guards: Mapping[str, bool] | None = None,
    input_value: Any = None,
    max_paths: int = DEFAULT_MAX_PATHS,
    budget: Budget | None = None,
) -> dict[str, Any]:
    """Paths through the machine (with its implementations) as `@xstate/graph` finds them: `{paths, coverage, totalCount, truncated, execution}`.

    The first `max_paths` paths are returned, as many of them as fit in half of what the
    call's output budget has left (`paths_within_output`).
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
    paths = paths_within_output(graph, found.returned)
    reason = graph.truncated or found.truncated or ("paths" if found.total > len(paths) else None)
    normalization = {key: value for key, value in explored.normalization.items() if key != "format"}
    if graph.truncated or found.truncated:
        cut = graph.truncated or found.truncated
        assert cut is not None
        normalization["truncation"] = (
            f"{TRUNCATION_MESSAGES[cut]}: the paths are those of the {len(graph.states)} states explored")
    return {
        "paths": paths,
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
            "transitionsExplored": graph.edge_count,
            "iterations": graph.iterations,
            "limit": explored.limit,
            "graphBytes": graph.nbytes(),
            "assumedGuards": explored.normalization["assumedGuards"],
            "assumedActors": explored.normalization["assumedActors"],
        },
    }
