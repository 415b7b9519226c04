"""`VirtualClock`: timers in due order, clearing, the keyed API, and a heap that stays small."""

from __future__ import annotations

from typing import Any

from statekit import Actor, create_machine
from statekit.engine.clock import COMPACT_AT, VirtualClock


def test_timers_fire_in_due_order_then_in_the_order_set() -> None:
    clock = VirtualClock()
    fired: list[tuple[Any, float]] = []
    for name, delay in (("c", 30), ("a", 10), ("b", 30), ("d", -5)):
        clock.set_timeout(delay, lambda argument, key: fired.append((argument, clock.now)), name)
    clock.advance(29)
    assert fired == [("d", 0), ("a", 10)]
    clock.advance(1)
    assert fired[2:] == [("c", 30), ("b", 30)] and clock.now == 30


def test_a_cleared_timer_does_not_fire_and_clearing_a_fired_one_does_nothing() -> None:
    clock = VirtualClock()
    fired: list[Any] = []
    first = clock.set_timeout(10, lambda argument, key: fired.append(argument), 1)
    second = clock.set_timeout(20, lambda argument, key: fired.append(argument), 2)
    clock.clear_timeout(second)
    clock.advance(100)
    clock.clear_timeout(first)
    clock.clear_timeout(second)
    assert fired == [1] and clock.pending() == []


def test_the_keyed_api_replaces_a_timer_with_the_same_key() -> None:
    clock = VirtualClock()
    fired: list[str] = []
    clock.schedule("k", 10, lambda: fired.append("first"))
    clock.schedule("k", 20, lambda: fired.append("second"))
    clock.schedule("other", 5, lambda: fired.append("other"))
    assert clock.pending() == [(5, "other"), (20, "k")]
    clock.cancel("other")
    clock.advance(100)
    assert fired == ["second"]
    clock.schedule("k", 10, lambda: fired.append("again"))  # the fired key is free again
    clock.advance(10)
    assert fired == ["second", "again"]


def test_timers_cleared_long_before_they_are_due_do_not_grow_the_heap() -> None:
    """A state with a one-hour `after`, re-entered 10,000 times while the clock stands still."""
    machine = create_machine({"id": "m", "initial": "a", "states": {
        "a": {"after": {"3600000": "b"}, "on": {"AGAIN": {"target": "a", "reenter": True}}}, "b": {}}})
    actor = Actor(machine).start()
    for _ in range(10_000):
        actor.send("AGAIN")
    assert len(actor.clock.pending()) == 1
    assert len(actor.clock._heap) < 2 + COMPACT_AT
    actor.clock.advance(3_600_000)
    assert actor.get_snapshot().value == "b"
