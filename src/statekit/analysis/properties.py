"""Properties proven over a machine's state graph, with the shortest witness or counterexample.

The state graph is the one `generate_graph_paths` explores (`statekit.analysis.paths`): a
state is a snapshot keyed by its active nodes and its context, the events tried in a state
are the machine's own event descriptors, and guards take supplied results, run in the
sandbox where inline code can run, or are assumed true. The graph is explored breadth
first, so the first path found to any state is a shortest one (fewest events); every
witness and counterexample below is such a path and replays in `simulate_machine` to the
same state values.

Each verdict is sound for the explored graph and says whether the graph was complete
(`exhaustive`). When the budget (`maxStates`, the call's time) runs out first, a property
whose verdict needs the whole graph answers `holds: null` instead of guessing:

| property        | decided early when                    | needs the whole graph to say |
|-----------------|---------------------------------------|------------------------------|
| reachable S     | a state matching S is found (true)    | false                        |
| unreachable S   | a state matching S is found (false)   | true                         |
| precedes A, B   | B is reached without A before (false) | true                         |
| deadlockFree    | a stuck, non-final state (false)      | true                         |
| canAlwaysReach S| never                                 | true and false               |

"Before" in `precedes` is strict: A must hold in an earlier configuration of the path than
the one where B first holds (a configuration entering both at once does not count).
"""

from __future__ import annotations

import json
from array import array
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from statekit.analysis.budget import DEFAULT_MAX_SECONDS, TRUNCATION_MESSAGES, Budget
from statekit.analysis.implemented import ImplementedMachine
from statekit.analysis.paths import (
    MAX_LIMIT,
    EventEnumerator,
    StateKeys,
    TraversalFailed,
    explore,
    explore_model,
    state_matcher,
)
from statekit.analysis.paths_graph import StateGraph
from statekit.analysis.simulate import build_simulation_machine
from statekit.engine.api import initial_transition, transition
from statekit.engine.machine import Machine
from statekit.engine.snapshot import Snapshot
from statekit.errors import EngineError, ToolError

PROPERTY_TYPES = ("reachable", "unreachable", "precedes", "deadlockFree", "canAlwaysReach")
#: States explored when `maxStates` is not given, and the most a call may ask for.
DEFAULT_MAX_STATES = 10_000
MAX_MAX_STATES = 200_000
#: Properties one call may check.
MAX_PROPERTIES = 50

Event = Mapping[str, Any]
StateTest = Callable[[Snapshot], bool]


class StateSpace:
    """The explored graph in breadth-first order, and each state's breadth-first parent.

    States and edges stay in the graph's compact form (`paths_graph`); a state's snapshot is
    built when a property reads it.
    """

    def __init__(self, machine: Machine, graph: StateGraph, exhaustive: bool, stopped: str | None,
                 normalization: dict[str, Any]) -> None:
        self.machine = machine
        self.graph = graph
        #: Whether every state reachable from the start was explored.
        self.exhaustive = exhaustive
        #: Why exploration stopped early (None when exhaustive).
        self.stopped = stopped
        self.normalization = normalization
        count = len(graph)
        starts, targets = graph.edge_start, graph.edge_target
        #: Per state, the edge position that discovered it breadth first (-1: the start).
        self.parent_edge = array("i", [-1]) * count
        self.parent_state = array("i", [-1]) * count
        seen = bytearray(count)
        if count:
            seen[0] = 1
        order = array("i", [0] if count else [])
        next_in_order = 0
        while next_in_order < len(order):  # the first discovery of a state is a shortest path to it
            state = order[next_in_order]
            next_in_order += 1
            for position in range(starts[state], starts[state + 1]):
                target = targets[position]
                if not seen[target]:
                    seen[target] = 1
                    self.parent_edge[target] = position
                    self.parent_state[target] = state
                    order.append(target)

    @property
    def states(self) -> Sequence[Snapshot]:
        return self.graph.states

    def __len__(self) -> int:
        return len(self.graph)

    @property
    def parents(self) -> list[tuple[int, Event] | None]:
        """Per state: the (parent state, event) that discovered it; None for the start."""
        graph = self.graph
        return [None if edge < 0 else (state, graph.event_at(edge))
                for state, edge in zip(self.parent_state, self.parent_edge, strict=True)]

    def out(self, state: int) -> Iterator[tuple[Event, int]]:
        """(event, target) for every edge of `state`, in the order tried; edges to states the
        budget left unexplored are not there."""
        graph = self.graph
        for position in graph.edge_range(state):
            yield graph.event_at(position), graph.edge_target[position]


def explore_state_space(implemented: ImplementedMachine, *, guards: Mapping[str, bool] | None = None,
                        input_value: Any = None, max_states: int = DEFAULT_MAX_STATES,
                        max_seconds: float | None = DEFAULT_MAX_SECONDS) -> StateSpace:
    """generate_graph_paths' traversal from the start, bounded by `max_states`, `max_seconds` and the call's time."""
    explored = explore_model(implemented, guards=guards, input_value=input_value, limit=MAX_LIMIT,
                             budget=Budget(max_states=max_states, max_seconds=max_seconds))
    return _state_space(explored.machine, explored.graph, explored.normalization)


def explore_machine_space(machine: Machine, *, input_value: Any = None,
                          max_states: int = DEFAULT_MAX_STATES) -> StateSpace:
    """The same traversal of a machine built with its own implementations (nothing assumed)."""
    start, _actions = initial_transition(machine, input_value)
    if start.status == "error":
        raise ToolError("invalid_input", f"the machine fails on start: {start.error}")
    try:
        graph = explore(machine, start, EventEnumerator(), MAX_LIMIT, None, Budget(max_states=max_states))
    except TraversalFailed as failure:
        raise ToolError("invalid_input", f"the machine threw on event '{failure.event.get('type')}' in state "
                        f"{json.dumps(failure.snapshot.value)}: {failure.error}") from None
    return _state_space(machine, graph, {})


def _state_space(machine: Machine, graph: StateGraph, normalization: dict[str, Any]) -> StateSpace:
    truncated = graph.truncated
    return StateSpace(machine, graph, truncated is None,
                      None if truncated is None else TRUNCATION_MESSAGES[truncated], normalization)


# -- traces --------------------------------------------------------------------------------


def trace(space: StateSpace, chain: Sequence[tuple[int, Event | None]]) -> dict[str, Any]:
    """`{events, states}` for a chain of (state, event that led to it) from the start."""
    return {
        "events": [dict(event) for _state, event in chain if event is not None],
        "states": [space.graph.snapshot(state).value for state, _event in chain],
    }


def path_to(space: StateSpace, target: int) -> list[tuple[int, Event | None]]:
    """The breadth-first (shortest) path from the start to `target`."""
    chain: list[tuple[int, Event | None]] = []
    walk = target
    while walk >= 0:
        edge = space.parent_edge[walk]
        chain.append((walk, None if edge < 0 else space.graph.event_at(edge)))
        walk = space.parent_state[walk]
    chain.reverse()
    return chain


# -- the properties ------------------------------------------------------------------------


@dataclass
class Verdict:
    holds: bool | None
    witness: dict[str, Any] | None = None
    counterexample: dict[str, Any] | None = None


def _first_matching(space: StateSpace, test: StateTest) -> int | None:
    graph = space.graph
    return next((index for index in range(len(graph)) if test(graph.snapshot(index))), None)


def check_reachable(space: StateSpace, test: StateTest) -> Verdict:
    found = _first_matching(space, test)
    if found is not None:
        return Verdict(True, witness=trace(space, path_to(space, found)))
    return Verdict(False if space.exhaustive else None)


def check_unreachable(space: StateSpace, test: StateTest) -> Verdict:
    found = _first_matching(space, test)
    if found is not None:
        return Verdict(False, counterexample=trace(space, path_to(space, found)))
    return Verdict(True if space.exhaustive else None)


def check_precedes(space: StateSpace, first: StateTest, then: StateTest) -> Verdict:
    """No path reaches `then` without `first` in an earlier configuration.

    Breadth first over (state, whether `first` held earlier on the path): the first
    product state in which `then` holds and `first` never held earlier is the shortest
    counterexample.
    """
    start = (0, False)
    parents: dict[tuple[int, bool], tuple[tuple[int, bool], Event] | None] = {start: None}
    queue: deque[tuple[int, bool]] = deque([start])
    while queue:
        state, seen_first = queue.popleft()
        snapshot = space.graph.snapshot(state)
        if not seen_first and then(snapshot):
            chain: list[tuple[int, Event | None]] = []
            walk: tuple[int, bool] | None = (state, seen_first)
            while walk is not None:
                link = parents[walk]
                chain.append((walk[0], None if link is None else link[1]))
                walk = None if link is None else link[0]
            chain.reverse()
            return Verdict(False, counterexample=trace(space, chain))
        seen_next = seen_first or first(snapshot)
        for event, target in space.out(state):
            product = (target, seen_next)
            if product not in parents:
                parents[product] = ((state, seen_first), event)
                queue.append(product)
    return Verdict(True if space.exhaustive else None)


def check_deadlock_free(space: StateSpace) -> Verdict:
    """Every reachable state that is not final has an event that changes it."""
    keys = StateKeys()
    graph = space.graph
    targets = graph.edge_target
    for index in range(len(graph)):
        if any(targets[position] != index for position in graph.edge_range(index)):
            continue
        snapshot = graph.snapshot(index)
        if snapshot.status == "done":
            continue
        # With a budget that ran out, an edge to an unexplored state is not in the graph: try the
        # state's events again before calling it stuck.
        if not space.exhaustive and _changes(space.machine, snapshot, keys):
            continue
        return Verdict(False, counterexample=trace(space, path_to(space, index)))
    return Verdict(True if space.exhaustive else None)


def _changes(machine: Machine, snapshot: Snapshot, keys: StateKeys) -> bool:
    if snapshot.status != "active":
        return False
    own = keys(snapshot)
    for _key, event in EventEnumerator()(snapshot):
        try:
            after, _actions = transition(machine, snapshot, event)
        except EngineError:
            return True
        if keys(after) != own:
            return True
    return False


def check_can_always_reach(space: StateSpace, test: StateTest) -> Verdict:
    """From every reachable state a state matching `test` stays reachable."""
    if not space.exhaustive:
        return Verdict(None)
    graph = space.graph
    count = len(graph)
    # The reversed graph in compressed rows: sources of each state's incoming edges.
    targets = graph.edge_target
    incoming_start = array("q", [0]) * (count + 1)
    for target in targets:
        incoming_start[target + 1] += 1
    for state in range(count):
        incoming_start[state + 1] += incoming_start[state]
    fill = array("q", incoming_start[:count])
    incoming = array("i", [0]) * len(targets)
    for source in range(count):
        for position in graph.edge_range(source):
            target = targets[position]
            incoming[fill[target]] = source
            fill[target] += 1
    can_reach = bytearray(1 if test(graph.snapshot(index)) else 0 for index in range(count))
    queue = deque(index for index, ok in enumerate(can_reach) if ok)
    while queue:
        state = queue.popleft()
        for source in incoming[incoming_start[state]:incoming_start[state + 1]]:
            if not can_reach[source]:
                can_reach[source] = 1
                queue.append(source)
    stuck = next((index for index, ok in enumerate(can_reach) if not ok), None)
    if stuck is None:
        return Verdict(True)
    return Verdict(False, counterexample=trace(space, path_to(space, stuck)))


# -- arguments and the result ----------------------------------------------------------------


def state_test(machine: Machine, where: str, state: Any) -> StateTest:
    """A state given as `#id`, a state id (`machine.child`) or a path, matched as `matches` does."""
    if isinstance(state, str) and not state.startswith("#") and state in machine.id_map:
        try:
            return state_matcher(machine, state)
        except ToolError:
            return state_matcher(machine, f"#{state}")
    try:
        return state_matcher(machine, state)
    except ToolError as error:
        raise ToolError("invalid_input", f"{where}: {error.message}") from None


def _check_one(space: StateSpace, kind: str, states: Sequence[StateTest]) -> Verdict:
    if kind == "reachable":
        return check_reachable(space, states[0])
    if kind == "unreachable":
        return check_unreachable(space, states[0])
    if kind == "precedes":
        return check_precedes(space, states[0], states[1])
    if kind == "deadlockFree":
        return check_deadlock_free(space)
    return check_can_always_reach(space, states[0])


REQUIRED_FIELDS = {
    "reachable": ("state",), "unreachable": ("state",), "canAlwaysReach": ("state",),
    "precedes": ("first", "then"), "deadlockFree": (),
}


def check_property_shapes(properties: Sequence[Any]) -> None:
    """`invalid_input` for a property of unknown type or without its fields."""
    for index, prop in enumerate(properties):
        if not isinstance(prop, Mapping) or prop.get("type") not in REQUIRED_FIELDS:
            raise ToolError("invalid_input",
                            f"properties[{index}].type must be one of {', '.join(PROPERTY_TYPES)}")
        for name in REQUIRED_FIELDS[prop["type"]]:
            if name not in prop:
                raise ToolError("invalid_input", f"properties[{index}] ({prop['type']}) needs `{name}`")


def check_machine_properties(
    implemented: ImplementedMachine,
    properties: Sequence[Mapping[str, Any]],
    *,
    guards: Mapping[str, bool] | None = None,
    max_states: int | None = None,
    input_value: Any = None,
    max_seconds: float | None = DEFAULT_MAX_SECONDS,
) -> dict[str, Any]:
    """`{results, normalization, execution}`: one result per property, in the order given.

    The traversal stops at `max_states`, after `max_seconds` (None: only the call's own
    deadline) or at the call's deadline, whichever comes first.
    """
    check_property_shapes(properties)
    budget = DEFAULT_MAX_STATES if max_states is None else max_states
    # Name errors first, before a traversal that may take the whole budget.
    named, _assumed = build_simulation_machine(implemented, guards)
    for index, prop in enumerate(properties):
        for name in REQUIRED_FIELDS[prop["type"]]:
            state_test(named, f"properties[{index}].{name}", prop[name])
    space = explore_state_space(implemented, guards=guards, input_value=input_value, max_states=budget,
                                max_seconds=max_seconds)
    return check_on_space(space, properties, budget)


def check_on_space(space: StateSpace, properties: Sequence[Mapping[str, Any]], budget: int) -> dict[str, Any]:
    """The verdicts of `properties` over an explored state space."""
    check_property_shapes(properties)
    tests = [[state_test(space.machine, f"properties[{index}].{name}", prop[name])
              for name in REQUIRED_FIELDS[prop["type"]]] for index, prop in enumerate(properties)]
    results = []
    for prop, states in zip(properties, tests, strict=True):
        verdict = _check_one(space, prop["type"], states)
        result: dict[str, Any] = {"property": dict(prop), "holds": verdict.holds,
                                  "explored": len(space), "exhaustive": space.exhaustive}
        if verdict.witness is not None:
            result["witness"] = verdict.witness
        if verdict.counterexample is not None:
            result["counterexample"] = verdict.counterexample
        results.append(result)
    return {
        "results": results,
        "normalization": space.normalization,
        "execution": {"statesExplored": len(space), "exhaustive": space.exhaustive,
                      "maxStates": budget, "stopped": space.stopped, "graphBytes": space.graph.nbytes()},
    }
