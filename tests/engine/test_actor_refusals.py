"""What statekit's Actor does where XState's createActor would run another actor, without node.

`tests/engine/test_actor_oracle.py` holds the Actor to XState's createActor on the inline corpus;
these are the same rules on machines written with the Python API: an event sent to a child (which
the Actor never runs) and a child whose logic is missing put the actor in error instead of being
dropped, and an action that throws while an event is processed leaves the snapshot the event was
sent to, in error (XState runs a running actor's actions within the step, which the error abandons).
"""

from __future__ import annotations

from typing import Any

from statekit import ActionArgs, Actor, create_machine, initial_transition, setup

PARENT: dict[str, Any] = {
    "id": "parent",
    "initial": "waiting",
    "context": {"n": 0},
    "states": {
        "waiting": {
            "invoke": {"src": "child", "id": "kid"},
            "on": {
                "PING": {"actions": {"type": "xstate.sendTo", "to": "kid", "event": {"type": "PING"}}},
                "NEXT": "later",
            },
        },
        "later": {},
    },
}


def test_send_to_a_child_the_actor_does_not_run_is_an_error_not_a_silent_drop() -> None:
    machine = setup(actors={"child": {}}).create_machine(PARENT)
    snapshot, actions = initial_transition(machine)  # the pure API still reports the child
    assert [action.type for action in actions] == ["xstate.spawnChild"] and "kid" in snapshot.children
    actor = Actor(machine).start()
    assert actor.snapshot.status == "active"
    actor.send("PING")
    assert actor.snapshot.status == "error"
    assert "goes to the actor 'kid', which statekit's Actor does not run" in str(actor.snapshot.error)
    actor.send("NEXT")  # an actor in error ignores further events, as XState's does
    assert actor.snapshot.value == "waiting"


def test_a_child_whose_logic_is_not_provided_cannot_start() -> None:
    actor = Actor(create_machine(PARENT)).start()
    assert actor.snapshot.status == "error"
    assert "no actor logic named 'child' is provided" in str(actor.snapshot.error)


def test_an_action_that_throws_during_a_send_leaves_the_snapshot_the_event_was_sent_to() -> None:
    def explode(args: ActionArgs, params: Any) -> None:
        raise RuntimeError("boom")

    machine = setup(actions={"explode": explode}).create_machine({
        "initial": "a",
        "context": {"n": 0},
        "states": {
            "a": {"on": {"GO": {"target": "b", "actions": [{"type": "xstate.assign", "assignment": {"n": 1}},
                                                             "explode"]}}},
            "b": {},
        },
    })
    actor = Actor(machine).start()
    actor.send("GO")
    snapshot = actor.get_snapshot()
    assert (snapshot.status, snapshot.error, snapshot.value, snapshot.context) == ("error", "boom", "a", {"n": 0})


def test_an_action_that_throws_at_start_comes_with_the_initial_snapshot() -> None:
    def explode(args: ActionArgs, params: Any) -> None:
        raise RuntimeError("boom")

    machine = setup(actions={"explode": explode}).create_machine({
        "initial": "a", "states": {"a": {"entry": "explode"}}})
    snapshot = Actor(machine).start().get_snapshot()
    assert (snapshot.status, snapshot.error, snapshot.value) == ("error", "boom", "a")
