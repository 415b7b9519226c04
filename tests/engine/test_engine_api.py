"""The engine's Python API: setup/assign, guards, Actor, snapshots and their persistence."""

from __future__ import annotations

import json
from typing import Any

import pytest

from statekit import (
    ActionArgs,
    Actor,
    EngineError,
    Implementations,
    Snapshot,
    VirtualClock,
    assign,
    create_machine,
    initial_transition,
    restore_snapshot,
    setup,
    transition,
)

# -- setup and assign -------------------------------------------------------------------------

COUNTER: dict[str, Any] = {
    "id": "counter",
    "initial": "idle",
    "context": {"count": 0, "last": None},
    "states": {
        "idle": {
            "on": {
                "INC": {"actions": {"type": "inc", "params": {"by": 2}}},
                "INC1": {"actions": "inc"},
                "SET": {"actions": "remember"},
                "FINISH": {"target": "done", "guard": {"type": "atLeast", "params": {"min": 4}}},
            }
        },
        "done": {"type": "final"},
    },
}


def counter_setup(log: list[Any] | None = None) -> Any:
    return setup(
        guards={"atLeast": lambda args, params: args.context["count"] >= params["min"]},
        actions={
            # The function form: (args, params) -> partial context.
            "inc": assign(lambda args, params: {"count": args.context["count"] + (params or {}).get("by", 1)}),
            # The mapping form: per-key values or functions of (args, params).
            "remember": assign({"last": lambda args, params: args.event["value"], "touched": True}),
        },
    )


def test_assign_function_form_receives_params() -> None:
    machine = counter_setup().create_machine(COUNTER)
    snapshot, _ = initial_transition(machine)
    snapshot, actions = transition(machine, snapshot, "INC")
    assert snapshot.context == {"count": 2, "last": None}
    snapshot, _ = transition(machine, snapshot, "INC1")
    assert snapshot.context["count"] == 3
    assert actions == []  # an assignment is applied, not reported as an executable action


def test_assign_mapping_form_mixes_functions_and_values() -> None:
    machine = counter_setup().create_machine(COUNTER)
    snapshot, _ = initial_transition(machine)
    snapshot, _ = transition(machine, snapshot, {"type": "SET", "value": "hello"})
    assert snapshot.context == {"count": 0, "last": "hello", "touched": True}


def test_assign_does_not_mutate_the_previous_snapshot() -> None:
    machine = counter_setup().create_machine(COUNTER)
    first, _ = initial_transition(machine)
    second, _ = transition(machine, first, "INC")
    assert first.context == {"count": 0, "last": None}
    assert second.context["count"] == 2


def test_guard_with_params() -> None:
    machine = counter_setup().create_machine(COUNTER)
    snapshot, _ = initial_transition(machine)
    snapshot, _ = transition(machine, snapshot, "FINISH")
    assert snapshot.value == "idle"  # count 0 < 4
    snapshot, _ = transition(machine, snapshot, "INC")
    snapshot, _ = transition(machine, snapshot, "INC")
    snapshot, _ = transition(machine, snapshot, "FINISH")
    assert snapshot.value == "done" and snapshot.status == "done"


def test_guards_implemented_as_other_guards_and_provide() -> None:
    implementations = setup(
        guards={
            "real": lambda args, params: bool(args.event.get("ok")),
            "alias": "real",
            "negated": {"type": "xstate.not", "guard": "real"},
        }
    )
    config = {
        "initial": "a",
        "states": {"a": {"on": {"A": {"target": "b", "guard": "alias"}, "N": {"target": "b", "guard": "negated"}}}, "b": {}},
    }
    machine = implementations.create_machine(config)
    start, _ = initial_transition(machine)
    assert transition(machine, start, {"type": "A", "ok": False})[0].value == "a"
    assert transition(machine, start, {"type": "A", "ok": True})[0].value == "b"
    assert transition(machine, start, {"type": "N", "ok": False})[0].value == "b"
    provided = machine.provide(Implementations(guards={"real": lambda args, params: True}))
    provided_start, _ = initial_transition(provided)
    assert transition(provided, provided_start, "A")[0].value == "b"
    # The original machine keeps its own implementations.
    assert transition(machine, start, "A")[0].value == "a"


def test_builtin_action_implementation_given_as_config_data() -> None:
    machine = setup(actions={"ping": {"type": "xstate.raise", "event": {"type": "PING"}}}).create_machine(
        {"initial": "a", "states": {"a": {"on": {"P": {"actions": "ping"}, "PING": "b"}}, "b": {}}}
    )
    snapshot, _ = initial_transition(machine)
    snapshot, actions = transition(machine, snapshot, "P")
    assert snapshot.value == "b"
    assert [a.type for a in actions] == ["xstate.raise"]


def test_missing_guard_implementation_raises_engine_error() -> None:
    machine = create_machine({"initial": "a", "states": {"a": {"on": {"GO": {"target": "b", "guard": "nope"}}}, "b": {}}})
    snapshot, _ = initial_transition(machine)
    with pytest.raises(EngineError, match="nope"):
        transition(machine, snapshot, "GO")


# -- events -----------------------------------------------------------------------------------


def test_events_as_bare_strings_equal_event_objects() -> None:
    machine = counter_setup().create_machine(COUNTER)
    snapshot, _ = initial_transition(machine)
    from_string, _ = transition(machine, snapshot, "INC")
    from_object, _ = transition(machine, snapshot, {"type": "INC"})
    assert from_string.value == from_object.value
    assert from_string.context == from_object.context


@pytest.mark.parametrize("event", [{"type": 3}, {}, 5, None, {"kind": "INC"}])
def test_malformed_events_raise_engine_error(event: Any) -> None:
    machine = counter_setup().create_machine(COUNTER)
    snapshot, _ = initial_transition(machine)
    with pytest.raises(EngineError):
        transition(machine, snapshot, event)


# -- the Actor --------------------------------------------------------------------------------

ACTOR_MACHINE: dict[str, Any] = {
    "id": "door",
    "initial": "closed",
    "context": {"opens": 0},
    "states": {
        "closed": {
            "on": {
                "OPEN": {"target": "open", "actions": [{"type": "record", "params": {"why": "open"}}, "countOpen"]},
                "KNOCK": {"actions": {"type": "xstate.emit", "event": {"type": "KNOCKED", "loud": True}}},
            }
        },
        "open": {
            "entry": ["record", {"type": "xstate.emit", "event": {"type": "OPENED"}}],
            "exit": {"type": "record", "params": {"why": "exit"}},
            "after": {"1000": "closed", "wait": "locked"},
            "on": {"CLOSE": "closed", "FAIL": {"actions": "explode"}},
        },
        "locked": {"type": "final"},
    },
}


def actor_setup(calls: list[tuple[Any, Any, Any]]) -> Any:
    def record(args: ActionArgs, params: Any) -> None:
        calls.append((dict(args.context), args.event["type"], params))

    def explode(args: ActionArgs, params: Any) -> None:
        raise RuntimeError("the door fell off")

    return setup(
        actions={"record": record, "countOpen": assign({"opens": lambda a, p: a.context["opens"] + 1}), "explode": explode},
        delays={"wait": lambda args, params: 5000},
    )


def test_actor_start_send_and_named_actions_run_with_args_and_params() -> None:
    calls: list[tuple[Any, Any, Any]] = []
    actor = Actor(actor_setup(calls).create_machine(ACTOR_MACHINE))
    assert actor.start() is actor
    assert actor.get_snapshot().value == "closed"
    actor.send("OPEN")
    assert actor.snapshot.value == "open"
    assert actor.snapshot.context == {"opens": 1}
    # Transition actions run before entry actions; the transition's `record` saw the
    # context before `countOpen`, the entry `record` saw it after.
    assert calls == [({"opens": 0}, "OPEN", {"why": "open"}), ({"opens": 1}, "OPEN", None)]
    actor.send({"type": "CLOSE"})
    assert calls[-1] == ({"opens": 1}, "CLOSE", {"why": "exit"})
    assert actor.snapshot.value == "closed"


def test_actor_start_is_idempotent() -> None:
    calls: list[tuple[Any, Any, Any]] = []
    actor = Actor(actor_setup(calls).create_machine(ACTOR_MACHINE)).start()
    first = actor.snapshot
    actor.start()
    assert actor.snapshot is first


def test_actor_get_snapshot_before_start_raises() -> None:
    actor = Actor(create_machine({"initial": "a", "states": {"a": {}}}))
    with pytest.raises(EngineError):
        actor.get_snapshot()


def test_subscribe_sees_every_snapshot_until_unsubscribed() -> None:
    actor = Actor(actor_setup([]).create_machine(ACTOR_MACHINE))
    seen: list[Any] = []
    unsubscribe = actor.subscribe(lambda snapshot: seen.append(snapshot.value))
    actor.start()
    actor.send("OPEN")
    unsubscribe()
    actor.send("CLOSE")
    assert seen == ["closed", "open"]
    unsubscribe()  # a second call is harmless


def test_emitted_events_reach_on_listeners() -> None:
    actor = Actor(actor_setup([]).create_machine(ACTOR_MACHINE)).start()
    knocked: list[Any] = []
    everything: list[Any] = []
    actor.on("KNOCKED", knocked.append)
    actor.on("*", everything.append)
    actor.send("KNOCK")
    actor.send("OPEN")
    assert knocked == [{"type": "KNOCKED", "loud": True}]
    assert [e["type"] for e in everything] == ["KNOCKED", "OPENED"]


def test_delayed_transition_fires_when_the_clock_advances() -> None:
    actor = Actor(actor_setup([]).create_machine(ACTOR_MACHINE)).start()
    actor.send("OPEN")
    pending = actor.clock.pending()
    assert [due for due, _ in pending] == [1000, 5000]
    assert pending[0][1].endswith("xstate.after.1000.door.open") and pending[1][1].endswith("xstate.after.wait.door.open")
    actor.clock.advance(999)
    assert actor.snapshot.value == "open"
    actor.clock.advance(1)
    assert actor.snapshot.value == "closed"
    # Leaving `open` cancelled the 5000 ms named delay too.
    assert actor.clock.pending() == []
    actor.clock.advance(10_000)
    assert actor.snapshot.value == "closed"


def test_named_delay_from_setup_is_used() -> None:
    machine = actor_setup([]).create_machine(
        {**ACTOR_MACHINE, "states": {**ACTOR_MACHINE["states"], "open": {"after": {"wait": "locked"}}}}
    )
    actor = Actor(machine).start()
    actor.send("OPEN")
    actor.clock.advance(4999)
    assert actor.snapshot.value == "open"
    actor.clock.advance(1)
    assert actor.snapshot.value == "locked" and actor.snapshot.status == "done"


def test_delayed_transition_is_cancelled_when_the_state_is_left() -> None:
    actor = Actor(actor_setup([]).create_machine(ACTOR_MACHINE)).start()
    actor.send("OPEN")
    actor.clock.advance(600)
    actor.send("CLOSE")
    actor.send("OPEN")  # re-entering restarts the timer from now (600)
    actor.clock.advance(600)
    assert actor.snapshot.value == "open"
    actor.clock.advance(400)
    assert actor.snapshot.value == "closed"


def test_shared_clock_orders_timers_of_several_actors() -> None:
    clock = VirtualClock()
    machine = actor_setup([]).create_machine(ACTOR_MACHINE)
    first = Actor(machine, clock=clock).start()
    second = Actor(machine, clock=clock).start()
    first.send("OPEN")
    clock.advance(500)
    second.send("OPEN")
    clock.advance(500)
    assert first.snapshot.value == "closed" and second.snapshot.value == "open"
    assert clock.now == 1000


def test_delayed_raise_and_cancel_actions() -> None:
    config = {
        "initial": "a",
        "states": {
            "a": {
                "on": {
                    "ARM": {"actions": {"type": "xstate.raise", "event": {"type": "FIRE"}, "delay": 100, "id": "t"}},
                    "DISARM": {"actions": {"type": "xstate.cancel", "sendId": "t"}},
                    "FIRE": "b",
                }
            },
            "b": {},
        },
    }
    armed = Actor(create_machine(config)).start()
    armed.send("ARM")
    armed.clock.advance(100)
    assert armed.snapshot.value == "b"
    disarmed = Actor(create_machine(config)).start()
    disarmed.send("ARM")
    disarmed.send("DISARM")
    disarmed.clock.advance(1000)
    assert disarmed.snapshot.value == "a"


def test_throwing_guard_gives_status_error_and_stops_processing() -> None:
    def bad(args: ActionArgs, params: Any) -> bool:
        raise ZeroDivisionError("no")

    machine = setup(guards={"bad": bad}).create_machine(
        {"initial": "a", "states": {"a": {"on": {"GO": {"target": "b", "guard": "bad"}, "OTHER": "b"}}, "b": {}}}
    )
    actor = Actor(machine).start()
    actor.send("GO")
    assert actor.snapshot.status == "error"
    assert "bad" in str(actor.snapshot.error)
    actor.send("OTHER")  # an errored actor ignores events
    assert actor.snapshot.value == "a" and actor.snapshot.status == "error"


def test_sending_to_an_unknown_actor_gives_status_error() -> None:
    machine = create_machine(
        {"initial": "a", "states": {"a": {"on": {"GO": {"actions": {"type": "xstate.sendTo", "to": "ghost", "event": {"type": "X"}}}}}}}
    )
    actor = Actor(machine).start()
    actor.send("GO")
    assert actor.snapshot.status == "error"
    assert "ghost" in str(actor.snapshot.error)


def test_throwing_action_implementation_gives_status_error() -> None:
    calls: list[tuple[Any, Any, Any]] = []
    actor = Actor(actor_setup(calls).create_machine(ACTOR_MACHINE)).start()
    actor.send("OPEN")
    actor.send("FAIL")
    assert actor.snapshot.status == "error"
    assert "the door fell off" in str(actor.snapshot.error)


def test_done_actor_ignores_events() -> None:
    actor = Actor(actor_setup([]).create_machine(ACTOR_MACHINE)).start()
    actor.send("OPEN")
    actor.clock.advance(5000 - 1)  # the 1000 ms timer closes the door first
    assert actor.snapshot.value == "closed"
    machine = create_machine({"initial": "a", "states": {"a": {"on": {"END": "z"}}, "z": {"type": "final", "output": 1}}})
    finished = Actor(machine).start()
    finished.send("END")
    assert finished.snapshot.status == "done"
    finished.send("END")
    assert finished.snapshot.value == "z"


# -- persistence ------------------------------------------------------------------------------

HISTORY_MACHINE: dict[str, Any] = {
    "id": "h",
    "initial": "on",
    "context": {"n": 0},
    "states": {
        "on": {
            "initial": "x",
            "meta": {"label": "powered"},
            "tags": ["powered"],
            "states": {
                "x": {"on": {"NEXT": "y"}, "tags": "first"},
                "y": {
                    "initial": "y1",
                    "states": {"y1": {"on": {"DEEPER": "y2"}}, "y2": {"meta": {"label": "deep"}, "tags": ["deep"]}},
                },
                "deepHist": {"type": "history", "history": "deep"},
                "shallowHist": {"type": "history"},
            },
            "on": {"OFF": "off", "BUMP": {"actions": {"type": "xstate.assign", "assignment": {"n": 1}}}},
        },
        "off": {"on": {"DEEP": "on.deepHist", "SHALLOW": "on.shallowHist", "NOOP": {"actions": "nothing"}}},
    },
}


def run(machine: Any, snapshot: Snapshot, events: list[Any]) -> Snapshot:
    for event in events:
        snapshot, _ = transition(machine, snapshot, event)
    return snapshot


@pytest.mark.parametrize("resume", [["DEEP"], ["SHALLOW"], ["DEEP", "NEXT"], ["SHALLOW", "DEEPER", "OFF", "DEEP"]])
def test_restore_snapshot_continues_identically_with_history(resume: list[str]) -> None:
    machine = create_machine(HISTORY_MACHINE)
    start, _ = initial_transition(machine)
    before = run(machine, start, ["NEXT", "DEEPER", "BUMP", "OFF"])
    persisted = json.loads(json.dumps(before.to_json()))
    assert persisted["historyValue"]  # history was recorded and persisted
    restored = restore_snapshot(machine, persisted)
    assert restored.value == before.value and restored.context == before.context
    assert restored.to_json() == before.to_json()
    original = run(machine, before, resume)
    continued = run(machine, restored, resume)
    assert continued.to_json() == original.to_json()


def test_deep_and_shallow_history_restore_differently() -> None:
    machine = create_machine(HISTORY_MACHINE)
    start, _ = initial_transition(machine)
    restored = restore_snapshot(machine, run(machine, start, ["NEXT", "DEEPER", "OFF"]).to_json())
    assert run(machine, restored, ["DEEP"]).value == {"on": {"y": "y2"}}
    assert run(machine, restored, ["SHALLOW"]).value == {"on": {"y": "y1"}}


def test_restore_in_a_fresh_machine_object() -> None:
    first = create_machine(HISTORY_MACHINE)
    start, _ = initial_transition(first)
    persisted = run(first, start, ["NEXT", "OFF"]).to_json()
    second = create_machine(HISTORY_MACHINE)
    restored = restore_snapshot(second, persisted)
    assert run(second, restored, ["DEEP"]).value == {"on": {"y": "y1"}}
    # A snapshot of another machine object is accepted by transition too.
    assert transition(second, run(first, start, ["NEXT", "OFF"]), "DEEP")[0].value == {"on": {"y": "y1"}}


def test_restore_done_snapshot_and_missing_value() -> None:
    machine = create_machine({"initial": "a", "states": {"a": {"on": {"END": "z"}}, "z": {"type": "final"}}})
    assert restore_snapshot(machine, {"value": "z"}).status == "done"
    with pytest.raises(Exception, match="value"):
        restore_snapshot(machine, {"context": {}})


def test_actor_snapshot_round_trips_through_json() -> None:
    calls: list[tuple[Any, Any, Any]] = []
    machine = actor_setup(calls).create_machine(ACTOR_MACHINE)
    actor = Actor(machine).start()
    actor.send("OPEN")
    data = json.loads(json.dumps(actor.snapshot.to_json()))
    assert data["value"] == "open" and data["context"] == {"opens": 1} and data["status"] == "active"
    restored = restore_snapshot(machine, data)
    after_close, _ = transition(machine, restored, "CLOSE")
    assert after_close.value == "closed"


# -- matches, can, get_meta, tags -------------------------------------------------------------


def test_matches_with_strings_paths_and_values() -> None:
    machine = create_machine(HISTORY_MACHINE)
    start, _ = initial_transition(machine)
    deep = run(machine, start, ["NEXT", "DEEPER"])
    assert deep.value == {"on": {"y": "y2"}}
    assert deep.matches("on")
    assert deep.matches("on.y")
    assert deep.matches("on.y.y2")
    assert deep.matches({"on": "y"})
    assert deep.matches({"on": {"y": "y2"}})
    assert not deep.matches("off")
    assert not deep.matches("on.x")
    assert not deep.matches({"on": {"y": "y1"}})


def test_matches_in_parallel_states() -> None:
    machine = create_machine(
        {"type": "parallel", "states": {"a": {"initial": "a1", "states": {"a1": {}}}, "b": {"initial": "b1", "states": {"b1": {}}}}}
    )
    snapshot, _ = initial_transition(machine)
    assert snapshot.value == {"a": "a1", "b": "b1"}
    assert snapshot.matches({"a": "a1"}) and snapshot.matches({"b": "b1"}) and snapshot.matches({"a": "a1", "b": "b1"})
    assert not snapshot.matches({"a": "b1"})


def test_can_reports_transitions_that_would_do_something() -> None:
    machine = create_machine(HISTORY_MACHINE)
    start, _ = initial_transition(machine)
    off = run(machine, start, ["OFF"])
    assert off.can("DEEP") and off.can({"type": "SHALLOW"})
    assert off.can("NOOP")  # targetless with an action
    assert not off.can("NEXT") and not off.can("UNKNOWN")
    assert start.can("NEXT") and start.can("OFF") and not start.can("DEEP")


def test_can_respects_guards() -> None:
    machine = counter_setup().create_machine(COUNTER)
    start, _ = initial_transition(machine)
    assert not start.can("FINISH")
    assert run(machine, start, ["INC", "INC"]).can("FINISH")


def test_get_meta_and_tags_of_the_active_nodes() -> None:
    machine = create_machine(HISTORY_MACHINE)
    start, _ = initial_transition(machine)
    assert start.get_meta() == {"h.on": {"label": "powered"}}
    assert start.tags == frozenset({"powered", "first"}) and start.has_tag("first")
    deep = run(machine, start, ["NEXT", "DEEPER"])
    assert deep.get_meta() == {"h.on": {"label": "powered"}, "h.on.y.y2": {"label": "deep"}}
    assert deep.tags == frozenset({"powered", "deep"}) and not deep.has_tag("first")
    assert run(machine, start, ["OFF"]).get_meta() == {}


# -- infinite loops ---------------------------------------------------------------------------

LOOP: dict[str, Any] = {
    "initial": "idle",
    "context": {"n": 0},
    "states": {
        "idle": {"on": {"GO": "a"}},
        "a": {"always": {"target": "b"}},
        "b": {"always": {"target": "a"}},
    },
}


def test_max_iterations_raises_on_an_infinite_always_loop() -> None:
    machine = create_machine(LOOP, max_iterations=50)
    snapshot, _ = initial_transition(machine)
    with pytest.raises(EngineError, match="Infinite loop"):
        transition(machine, snapshot, "GO")


def test_infinite_loop_in_the_initial_state_gives_status_error() -> None:
    machine = create_machine({**LOOP, "initial": "a"}, max_iterations=20)
    snapshot, _ = initial_transition(machine)
    assert snapshot.status == "error"
    assert "Infinite loop" in str(snapshot.error)


def test_targetless_assigning_always_loop_is_stopped() -> None:
    machine = setup(actions={"bump": assign(lambda a, p: {"n": a.context["n"] + 1})}).create_machine(
        {"initial": "idle", "context": {"n": 0}, "states": {"idle": {"on": {"GO": "spin"}}, "spin": {"always": {"actions": "bump"}}}},
        max_iterations=30,
    )
    snapshot, _ = initial_transition(machine)
    with pytest.raises(EngineError):
        transition(machine, snapshot, "GO")


def test_actor_turns_an_infinite_loop_into_status_error() -> None:
    actor = Actor(create_machine(LOOP, max_iterations=10)).start()
    actor.send("GO")
    assert actor.snapshot.status == "error"


# -- input, output, children ------------------------------------------------------------------


def test_context_from_input_through_a_python_factory() -> None:
    machine = create_machine(
        {
            "context": lambda args, params: {"user": args.event["input"]["user"], "visits": 0},
            "initial": "a",
            "states": {"a": {}},
        }
    )
    snapshot, _ = initial_transition(machine, {"user": "ann"})
    assert snapshot.context == {"user": "ann", "visits": 0}
    actor = Actor(machine, input={"user": "bob"}).start()
    assert actor.snapshot.context["user"] == "bob"


def test_throwing_entry_action_at_start_gives_status_error() -> None:
    def fail(args: ActionArgs, params: Any) -> Any:
        raise ValueError("cannot start")

    machine = setup(actions={"boot": assign(fail)}).create_machine({"initial": "a", "context": {}, "states": {"a": {"entry": "boot"}}})
    snapshot, _ = initial_transition(machine)
    assert snapshot.status == "error" and "cannot start" in str(snapshot.error)


def test_final_output_and_done_status() -> None:
    machine = create_machine(
        {"initial": "a", "output": {"result": 42}, "states": {"a": {"on": {"END": "z"}}, "z": {"type": "final"}}}
    )
    snapshot, _ = initial_transition(machine)
    assert snapshot.output is None and snapshot.status == "active"
    done, _ = transition(machine, snapshot, "END")
    assert done.status == "done" and done.output == {"result": 42}
    assert done.to_json()["output"] == {"result": 42}


def test_spawned_children_survive_persistence() -> None:
    machine = setup(actors={"worker": object()}).create_machine(
        {
            "initial": "a",
            "states": {
                "a": {
                    "on": {
                        "SPAWN": {"actions": {"type": "xstate.spawnChild", "src": "worker", "id": "w1", "input": {"n": 1}}},
                        "STOP": {"actions": {"type": "xstate.stopChild", "actorRef": "w1"}},
                    }
                }
            },
        }
    )
    snapshot, _ = initial_transition(machine)
    spawned, actions = transition(machine, snapshot, "SPAWN")
    assert [a.type for a in actions] == ["xstate.spawnChild"]
    data = json.loads(json.dumps(spawned.to_json()))
    assert data["children"] == {"w1": {"id": "w1", "src": "worker", "input": {"n": 1}}}
    restored = restore_snapshot(machine, data)
    assert set(restored.children) == {"w1"}
    stopped, _ = transition(machine, restored, "STOP")
    assert stopped.children == {}
