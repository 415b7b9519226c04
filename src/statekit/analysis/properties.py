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
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from statekit.analysis.paths import EventEnumerator, StateKeys, state_matcher
from statekit.analysis.simulate import build_simulation_machine
from statekit.engine.api import initial_transition, transition
from statekit.engine.machine import Machine
from statekit.engine.snapshot import Snapshot
from statekit.errors import EngineError, ToolError
from statekit.model.core import MachineModel

PROPERTY_TYPES = ("reachable", "unreachable", "precedes", "deadlockFree", "canAlwaysReach")
#: States explored when `maxStates` is not given, and the most a call may ask for.
DEFAULT_MAX_STATES = 10_000
MAX_MAX_STATES = 200_000
#: Properties one call may check.
MAX_PROPERTIES = 50

Event = Mapping[str, Any]
StateTest = Callable[[Snapshot], bool]


@dataclass
class StateSpace:
    """The explored graph: states in breadth-first order, edges, and each state's BFS parent."""

    states: list[Snapshot] = field(default_factory=list)
    #: Per state: (event, target state) for every event tried, in the order tried.
    edges: list[list[tuple[Event, int]]] = field(default_factory=list)
    #: Per state: the (parent state, event) that discovered it; None for the start.
    parents: list[tuple[int, Event] | None] = field(default_factory=list)
    #: States whose events were all tried (the first `expanded` states, in BFS order).
    expanded: int = 0
    #: Per expanded state: whether an edge was dropped because the budget had no room for its target.
    dropped_edges: list[bool] = field(default_factory=list)
    #: Whether every state reachable from the start was explored.
    exhaustive: bool = True
    #: Why exploration stopped early (None when exhaustive).
    stopped: str | None = None


def explore_state_space(machine: Machine, start: Snapshot, max_states: int,
                        should_stop: Callable[[], str | None] | None = None) -> StateSpace:
    """Breadth first over every (state, event) pair, stopping after `max_states` states.

    `should_stop` is polled once per state; a non-None answer (the reason) ends the search
    as the budget does, leaving `exhaustive` false.
    """
    keys = StateKeys()
    events_for = EventEnumerator()
    space = StateSpace()
    index_of = {keys(start): 0}
    space.states.append(start)
    space.parents.append(None)
    expanded = 0
    while expanded < len(space.states):
        if should_stop is not None:
            reason = should_stop()
            if reason is not None:
                space.exhaustive, space.stopped = False, reason
                break
        snapshot = space.states[expanded]
        outgoing: list[tuple[Event, int]] = []
        dropped = False
        if snapshot.status == "active":
            for _key, event in events_for(snapshot):
                try:
                    next_snapshot, _actions = transition(machine, snapshot, event)
                except EngineError as error:
                    raise ToolError(
                        "invalid_input",
                        f"the machine threw on event '{event.get('type')}' in state "
                        f"{json.dumps(snapshot.value)}: {error}",
                        {"state": snapshot.value, "event": dict(event)},
                    ) from None
                next_key = keys(next_snapshot)
                target = index_of.get(next_key)
                if target is None:
                    if len(space.states) >= max_states:
                        space.exhaustive = False
                        space.stopped = f"maxStates ({max_states}) reached"
                        dropped = True
                        continue
                    target = index_of[next_key] = len(space.states)
                    space.states.append(next_snapshot)
                    space.parents.append((expanded, event))
                outgoing.append((event, target))
        space.edges.append(outgoing)
        space.dropped_edges.append(dropped)
        expanded += 1
    # States discovered but never expanded have unknown edges; treat them as unexplored.
    space.edges.extend([] for _ in range(len(space.states) - len(space.edges)))
    space.expanded = expanded
    return space


# -- traces --------------------------------------------------------------------------------


def trace(space: StateSpace, chain: Sequence[tuple[int, Event | None]]) -> dict[str, Any]:
    """`{events, states}` for a chain of (state, event that led to it) from the start."""
    return {
        "events": [dict(event) for _state, event in chain if event is not None],
        "states": [space.states[state].value for state, _event in chain],
    }


def path_to(space: StateSpace, target: int) -> list[tuple[int, Event | None]]:
    """The breadth-first (shortest) path from the start to `target`."""
    chain: list[tuple[int, Event | None]] = []
    walk: int | None = target
    while walk is not None:
        link = space.parents[walk]
        chain.append((walk, None if link is None else link[1]))
        walk = None if link is None else link[0]
    chain.reverse()
    return chain


# -- the properties ------------------------------------------------------------------------


@dataclass
class Verdict:
    holds: bool | None
    witness: dict[str, Any] | None = None
    counterexample: dict[str, Any] | None = None


def _first_matching(space: StateSpace, test: StateTest) -> int | None:
    return next((index for index, state in enumerate(space.states) if test(state)), None)


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
        snapshot = space.states[state]
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
        for event, target in space.edges[state]:
            product = (target, seen_next)
            if product not in parents:
                parents[product] = ((state, seen_first), event)
                queue.append(product)
    return Verdict(True if space.exhaustive else None)


def check_deadlock_free(space: StateSpace) -> Verdict:
    """Every reachable state that is not final has an event that changes it."""
    for index in range(space.expanded):
        snapshot = space.states[index]
        if snapshot.status == "done" or space.dropped_edges[index]:
            continue
        if all(target == index for _event, target in space.edges[index]):
            return Verdict(False, counterexample=trace(space, path_to(space, index)))
    return Verdict(True if space.exhaustive else None)


def check_can_always_reach(space: StateSpace, test: StateTest) -> Verdict:
    """From every reachable state a state matching `test` stays reachable."""
    if not space.exhaustive:
        return Verdict(None)
    incoming: list[list[int]] = [[] for _ in space.states]
    for source, edges in enumerate(space.edges):
        for _event, target in edges:
            incoming[target].append(source)
    can_reach = [test(state) for state in space.states]
    queue = deque(index for index, ok in enumerate(can_reach) if ok)
    while queue:
        state = queue.popleft()
        for source in incoming[state]:
            if not can_reach[source]:
                can_reach[source] = True
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


def _check_one(machine: Machine, space: StateSpace, index: int, prop: Mapping[str, Any]) -> Verdict:
    kind = prop["type"]
    where = f"properties[{index}]"
    if kind == "reachable":
        return check_reachable(space, state_test(machine, f"{where}.state", prop["state"]))
    if kind == "unreachable":
        return check_unreachable(space, state_test(machine, f"{where}.state", prop["state"]))
    if kind == "precedes":
        return check_precedes(space, state_test(machine, f"{where}.first", prop["first"]),
                              state_test(machine, f"{where}.then", prop["then"]))
    if kind == "deadlockFree":
        return check_deadlock_free(space)
    return check_can_always_reach(space, state_test(machine, f"{where}.state", prop["state"]))


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
    model: MachineModel,
    properties: Sequence[Mapping[str, Any]],
    *,
    guards: Mapping[str, bool] | None = None,
    max_states: int | None = None,
    input_value: Any = None,
    source_implementations: Mapping[str, Any] | None = None,
    should_stop: Callable[[], str | None] | None = None,
) -> dict[str, Any]:
    """`{results, normalization, execution}`: one result per property, in the order given."""
    check_property_shapes(properties)
    budget = DEFAULT_MAX_STATES if max_states is None else max_states
    machine, normalization = build_simulation_machine(model, guards, source_implementations)
    start, _actions = initial_transition(machine, input_value)
    if start.status == "error":
        raise ToolError("invalid_input", f"the machine fails on start: {start.error}")
    # Resolve every state argument before the (possibly long) exploration.
    for index, prop in enumerate(properties):
        for name in REQUIRED_FIELDS[prop["type"]]:
            state_test(machine, f"properties[{index}].{name}", prop[name])
    space = explore_state_space(machine, start, budget, should_stop)
    results = []
    for index, prop in enumerate(properties):
        verdict = _check_one(machine, space, index, prop)
        result: dict[str, Any] = {"property": dict(prop), "holds": verdict.holds,
                                  "explored": len(space.states), "exhaustive": space.exhaustive}
        if verdict.witness is not None:
            result["witness"] = verdict.witness
        if verdict.counterexample is not None:
            result["counterexample"] = verdict.counterexample
        results.append(result)
    return {
        "results": results,
        "normalization": normalization,
        "execution": {"statesExplored": len(space.states), "exhaustive": space.exhaustive,
                      "maxStates": budget, "stopped": space.stopped},
    }
