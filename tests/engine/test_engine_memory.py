"""The engine's caches are bounded: memory stays flat however many configurations or event
types a machine meets (issue 12: 300k distinct event types once grew memory by 358 MB).

Bounded event counts, memory measured with tracemalloc: never wall-clock time.
`python bench/engine_memory.py` runs the same at 10^6 events and 10^5 event types.
"""

from __future__ import annotations

import gc
import json
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import statekit
from statekit.engine.actions import MAX_RESOLVERS, ActionContext, resolve_actions
from statekit.engine.algorithm import MAX_CANDIDATE_TYPES
from statekit.engine.plan import MAX_PLANS
from statekit.model.core import Action

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "machines"))
import wide

ORDERS: dict[str, Any] = json.loads((Path(__file__).resolve().parents[2] / "bench" / "machines" / "orders.json").read_text())


def _traced_after(send: Any, events: Any) -> int:
    for event in events:
        send(event)
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def test_distinct_event_types_do_not_grow_memory() -> None:
    machine = statekit.create_machine(ORDERS)
    actor = statekit.Actor(machine).start()
    types = (f"order.{n}.updated" for n in range(40_000))
    tracemalloc.start()
    try:
        first = _traced_after(actor.send, ({"type": next(types)} for _ in range(10_000)))
        last = _traced_after(actor.send, ({"type": t} for t in types))
    finally:
        tracemalloc.stop()
    assert actor.get_snapshot().context == {"seen": 1}
    for node in machine.nodes:
        assert len(node.candidates) <= MAX_CANDIDATE_TYPES
    assert len(machine.selections) <= MAX_PLANS
    # 30,000 more distinct types: what the selection cache holds between its clearings (at
    # most 8192 small entries, under 2 MB), not one entry per type (that would be 6 MB and up).
    assert last - first < 3 * 1024 * 1024, (first, last)


def test_a_walk_through_thousands_of_configurations_keeps_caches_bounded() -> None:
    machine = statekit.create_machine(wide.config())
    snapshot, _ = statekit.initial_transition(machine)
    walk = [{"type": t} for t in wide.walk(30_000)]
    configurations = set()
    tracemalloc.start()
    try:
        for event in walk[:10_000]:
            snapshot, _ = statekit.transition(machine, snapshot, event)
        gc.collect()
        first = tracemalloc.get_traced_memory()[0]
        for event in walk[10_000:]:
            snapshot, _ = statekit.transition(machine, snapshot, event)
            configurations.add(snapshot.nodes)
        gc.collect()
        last = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(configurations) > MAX_PLANS  # the caches had to evict
    assert len(machine.plans) <= MAX_PLANS and len(machine.selections) <= MAX_PLANS
    assert len(machine.values) <= 8192 and 0 < len(machine.local_parts) <= MAX_PLANS
    # Full caches are a few megabytes; evictions keep them there (the set above holds node
    # tuples the caches share, a few more).
    assert last - first < 20 * 1024 * 1024, (first, last)


def test_actions_made_while_running_keep_the_resolver_cache_bounded() -> None:
    """Actions built at run time (an inline enqueueActions, stopping children) are new objects
    each time: each gets a resolver, and the cache of them is cleared when full."""
    machine = statekit.create_machine(ORDERS)
    snapshot, _ = statekit.initial_transition(machine)
    ctx = ActionContext()
    for n in range(3 * MAX_RESOLVERS):
        action = Action(type="xstate.raise", fields={"event": {"type": f"e{n}"}, "id": None, "delay": n + 1})
        snapshot = resolve_actions(snapshot, {"type": "GO"}, ctx, [action], None)
        assert len(machine.resolvers) <= MAX_RESOLVERS
    assert [a.params["delay"] for a in ctx.actions[-2:]] == [3 * MAX_RESOLVERS - 1, 3 * MAX_RESOLVERS]
    assert ctx.internal_queue == []  # delayed: nothing raised now
