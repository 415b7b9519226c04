"""The explored state graph, kept compactly: a few hundred bytes per state, not tens of kilobytes.

A traversal of a wide machine (20 parallel toggle regions: a million configurations, 20
events in each) used to keep a full `Snapshot` per state (its node tuple, its node set, its
state value once asked for: 2-4 KB), a `NamedTuple` and a transition list per edge, and one
queue entry per (state, event) pair holding the next snapshot and its key (a frozenset of
the active nodes, 2 KB each): about 60 KB per explored state. Here:

- a state is a record: its active nodes in `_nodes` order as one byte (or two) per node,
  alone when every other field of the snapshot is the start's (the common case: no context,
  or an action-free step), else with those fields (shared objects, not copies);
- its identity for deduplication is an int bit mask of its active nodes, with the context's
  JSON when it has one (`serializeSnapshot`'s `{value, context}`: the node set determines the
  value);
- the edges of all states sit in four flat arrays (compressed sparse rows): where each
  state's edges begin, and per edge the event, the target and the transitions taken, the
  last two as ids into tables of distinct events and distinct transition lists;
- snapshots and `Edge` tuples are rebuilt on demand (`snapshot(i)`, `edges[i]`), so nothing
  asked of a state (its state value, its node set) stays cached in the graph.

`graph.states` and `graph.edges` read as the lists they used to be; the path and property
searches use the arrays directly.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Literal, NamedTuple, overload

from statekit.analysis.budget import TruncationReason
from statekit.engine.machine import Machine, Node, RuntimeTransition
from statekit.engine.snapshot import Snapshot, Status

Event = Mapping[str, Any]

#: The id of "the transitions taken are not known: replay the step" in `edge_taken`.
REPLAY = -1
_NO_TRANSITIONS: tuple[RuntimeTransition, ...] = ()

#: A snapshot's fields besides its nodes: context, status, output, error, children, history.
Fields = tuple[Any, Status, Any, Any, Mapping[str, Any], Mapping[str, tuple[Node, ...]]]


class Edge(NamedTuple):
    """One explored (state, event) pair: the event's serialisation, the event, the next state."""

    event_key: str
    event: Event
    target: int
    #: The transitions the step took, when that is known without replaying it (a pure step,
    #: see `paths_step`: nothing eventless or raised follows); None: replay it for coverage.
    taken: Sequence[RuntimeTransition] | None = None


def snapshot_fields(snapshot: Snapshot) -> Fields:
    return (snapshot.context, snapshot.status, snapshot.output, snapshot.error, snapshot.children, snapshot.history)


class StateGraph:
    """The adjacency map: states in discovery order (index 0 is the start) and their edges."""

    def __init__(self, machine: Machine, start: Snapshot) -> None:
        self.machine = machine
        self._nodes: list[Node] = list(machine.nodes)
        self._index: dict[Node, int] = {node: index for index, node in enumerate(self._nodes)}
        #: One byte per node index when they fit, else two or four.
        self._typecode: Literal["B", "H", "I"] = "B" if len(self._nodes) <= 1 << 8 else "H" if len(self._nodes) <= 1 << 16 else "I"
        self._base: Fields = snapshot_fields(start)
        #: Per state: its encoded nodes (bytes), or (encoded nodes, *fields) when a field differs
        #: from the start's.
        self.records: list[bytes | tuple[Any, ...]] = []
        #: Per state, the offset of its first edge in the edge arrays; one more at the end.
        self.edge_start = array("q", [0])
        self.edge_event = array("i")
        self.edge_target = array("i")
        self.edge_taken = array("i")
        #: Distinct events tried, as (serialisation, event), and their ids.
        self.events: list[tuple[str, Event]] = []
        self.event_ids: dict[str, int] = {}
        #: Distinct transition lists taken (id 0: none), and their ids.
        self.taken: list[Sequence[RuntimeTransition]] = [_NO_TRANSITIONS]
        self._taken_one: dict[RuntimeTransition, int] = {}
        self._taken_many: dict[tuple[RuntimeTransition, ...], int] = {}
        self.iterations = 0
        #: Why the traversal stopped before the graph was complete, if it did.
        self.truncated: TruncationReason | None = None

    # -- building ---------------------------------------------------------------------------

    def encode(self, nodes: Iterable[Node]) -> bytes:
        index = self._index
        if self._typecode == "B":
            return bytes([index[node] for node in nodes])
        return array(self._typecode, [index[node] for node in nodes]).tobytes()

    def position(self, node: Node) -> int:
        """The node's position in `machine.nodes` (document order)."""
        return self._index[node]

    def add_state(self, nodes: tuple[Node, ...], fields: Fields) -> int:
        """Record a newly discovered state; its id."""
        code = self.encode(nodes)
        base = self._base
        same = all(mine is theirs for mine, theirs in zip(fields, base, strict=True))
        self.records.append(code if same else (code, *fields))
        return len(self.records) - 1

    def event_id(self, event_key: str, event: Event) -> int:
        found = self.event_ids.get(event_key)
        if found is None:
            found = self.event_ids[event_key] = len(self.events)
            self.events.append((event_key, event))
        return found

    def taken_id(self, taken: Sequence[RuntimeTransition] | None) -> int:
        if taken is None:
            return REPLAY
        if not taken:
            return 0
        if len(taken) == 1:
            table: dict[Any, int] = self._taken_one
            key: Any = taken[0]
        else:
            table = self._taken_many
            key = tuple(taken)
        found = table.get(key)
        if found is None:
            found = table[key] = len(self.taken)
            self.taken.append(tuple(taken))
        return found

    def add_edges(self, edges: Iterable[tuple[int, int, int]]) -> None:
        """The next expanded state's edges: (event id, target id, taken id) each, in order."""
        events, targets, taken = self.edge_event, self.edge_target, self.edge_taken
        for event, target, took in edges:
            events.append(event)
            targets.append(target)
            taken.append(took)
        self.edge_start.append(len(targets))

    def finish(self, expanded: int) -> None:
        """Keep the first `expanded` states (the others were discovered, never expanded) and
        drop the edges to the others, in place."""
        del self.records[expanded:]
        del self.edge_start[expanded + 1:]
        targets = self.edge_target
        if not any(target >= expanded for target in targets):
            return
        starts, events, taken = self.edge_start, self.edge_event, self.edge_taken
        write = 0
        begin = 0
        for state in range(expanded):
            end = starts[state + 1]
            for read in range(begin, end):
                if targets[read] < expanded:
                    events[write] = events[read]
                    targets[write] = targets[read]
                    taken[write] = taken[read]
                    write += 1
            begin = end
            starts[state + 1] = write
        del events[write:]
        del targets[write:]
        del taken[write:]

    # -- reading ----------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.records)

    def node_numbers(self, state: int) -> Iterable[int]:
        """The state's active nodes as their positions in `machine.nodes` (see `node_at`)."""
        record = self.records[state]
        code = record if isinstance(record, bytes) else record[0]
        if self._typecode == "B":
            return code
        return memoryview(code).cast("H" if self._typecode == "H" else "I")

    def node_at(self, number: int) -> Node:
        return self._nodes[number]

    def nodes_of(self, state: int) -> tuple[Node, ...]:
        return tuple(map(self._nodes.__getitem__, self.node_numbers(state)))

    def fields_of(self, state: int) -> Fields:
        record = self.records[state]
        if isinstance(record, bytes):
            return self._base
        return record[1:]

    def context_of(self, state: int) -> Any:
        return self.fields_of(state)[0]

    def snapshot(self, state: int) -> Snapshot:
        """The state's snapshot, built anew (the graph keeps no snapshot)."""
        context, status, output, error, children, history = self.fields_of(state)
        return Snapshot(self.machine, self.nodes_of(state), context, status, output, error, children, history)

    def edge_range(self, state: int) -> range:
        """The positions of the state's edges in the edge arrays."""
        return range(self.edge_start[state], self.edge_start[state + 1])

    def targets(self, state: int) -> array[int]:
        return self.edge_target[self.edge_start[state]:self.edge_start[state + 1]]

    def event_at(self, position: int) -> Event:
        return self.events[self.edge_event[position]][1]

    def edge_at(self, position: int) -> Edge:
        event_key, event = self.events[self.edge_event[position]]
        took = self.edge_taken[position]
        return Edge(event_key, event, self.edge_target[position], None if took == REPLAY else self.taken[took])

    def out_edges(self, state: int) -> list[Edge]:
        return [self.edge_at(position) for position in self.edge_range(state)]

    def nbytes(self) -> int:
        """Bytes the graph keeps, as `sys.getsizeof` counts them: the state records (not the
        contexts and other fields they share with the machine's snapshots), the edge arrays
        and the tables of events and transition lists."""
        size = sum(map(sys.getsizeof, self.records)) + sys.getsizeof(self.records)
        size += sum(map(sys.getsizeof, (self.edge_start, self.edge_event, self.edge_target, self.edge_taken)))
        return size + sys.getsizeof(self.events) + sys.getsizeof(self.taken)

    @property
    def edge_count(self) -> int:
        return len(self.edge_target)

    @property
    def states(self) -> StateList:
        """The states as snapshots (each built when read)."""
        return StateList(self)

    @property
    def edges(self) -> EdgeLists:
        """Per state, its edges as `Edge` tuples (built when read)."""
        return EdgeLists(self)


class StateList(Sequence[Snapshot]):
    """`graph.states`: a read-only list of snapshots, built one by one as they are read."""

    def __init__(self, graph: StateGraph) -> None:
        self._graph = graph

    def __len__(self) -> int:
        return len(self._graph)

    @overload
    def __getitem__(self, index: int) -> Snapshot: ...
    @overload
    def __getitem__(self, index: slice) -> list[Snapshot]: ...
    def __getitem__(self, index: int | slice) -> Snapshot | list[Snapshot]:
        if isinstance(index, slice):
            return [self._graph.snapshot(i) for i in range(len(self._graph))[index]]
        return self._graph.snapshot(range(len(self._graph))[index])

    def __iter__(self) -> Iterator[Snapshot]:
        graph = self._graph
        return (graph.snapshot(i) for i in range(len(graph)))


class EdgeLists(Sequence[list[Edge]]):
    """`graph.edges`: per state, the list of its `Edge`s, built as it is read."""

    def __init__(self, graph: StateGraph) -> None:
        self._graph = graph

    def __len__(self) -> int:
        return len(self._graph)

    @overload
    def __getitem__(self, index: int) -> list[Edge]: ...
    @overload
    def __getitem__(self, index: slice) -> list[list[Edge]]: ...
    def __getitem__(self, index: int | slice) -> list[Edge] | list[list[Edge]]:
        if isinstance(index, slice):
            return [self._graph.out_edges(i) for i in range(len(self._graph))[index]]
        return self._graph.out_edges(range(len(self._graph))[index])

    def __iter__(self) -> Iterator[list[Edge]]:
        graph = self._graph
        return (graph.out_edges(i) for i in range(len(graph)))
