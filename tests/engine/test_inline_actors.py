"""The running actor inside inline code: `spawn`, `self`, actor references, inline actor logic.

XState hands inline code parts of the running actor (`spawn` and `self` to an assign, `self` to an
output, ...). statekit's pure transition follows what XState's pure `transition()` does with them:
a spawned actor joins the snapshot's children and its reference sits in context as XState persists
it (`{"xstate$$type": 1, "id": ...}`); what would need a running actor throws. The traces of the
same machines in real XState are checked by the inline oracle (tests/oracle/inline/xstate/*.json,
e.g. `xstate_actor__should_be_able_to_spawn_a_promise`); these tests pin the contract itself.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

import statekit
from statekit.engine.actor import Actor
from statekit.engine.implementations import Implementations
from statekit.engine.machine import Machine
from statekit.engine.sandbox import JsSandbox

SESSION = re.compile(r"^x:\d+$")


def _machine(config: dict[str, Any], *, actors: dict[str, Any] | None = None,
             sandbox: JsSandbox | None = None) -> Machine:
    from statekit.model.parse import parse_machine

    return Machine(parse_machine(config), Implementations(actors=actors or {}, evaluator=sandbox or JsSandbox()))


def _ref(value: Any) -> str:
    assert isinstance(value, dict) and value.get("xstate$$type") == 1 and set(value) == {"xstate$$type", "id"}, value
    return str(value["id"])


def test_spawn_in_assign_adds_the_child_and_puts_its_reference_in_context() -> None:
    machine = _machine({"id": "m", "context": {}, "entry": {"type": "xstate.assign", "assignment": {
        "named": {"$js": "({ spawn }) => spawn('worker', { id: 'w1', input: 3 })"},
        "anonymous": {"$js": "({ spawn }) => spawn('worker')"}}}}, actors={"worker": {}})
    snapshot, actions = statekit.initial_transition(machine)
    assert snapshot.status == "active", snapshot.error
    assert _ref(snapshot.context["named"]) == "w1"
    generated = _ref(snapshot.context["anonymous"])
    assert SESSION.match(generated)  # a session id, as XState books one
    assert set(snapshot.children) == {"w1", generated}
    assert snapshot.children["w1"] is not None and snapshot.children["w1"].input == 3
    assert actions == []  # assign is no executable action, as in XState


def test_spawn_of_logic_the_machine_does_not_have_fails_in_xstates_words() -> None:
    machine = _machine({"id": "m", "context": {"$js": "({ spawn }) => ({ ref: spawn('missing') })"}})
    snapshot, _ = statekit.initial_transition(machine)
    assert snapshot.status == "error"
    assert "Actor logic 'missing' not implemented in machine 'm'" in str(snapshot.error)
    assert snapshot.children == {}


def test_a_reference_in_context_is_a_reference_again_in_later_code() -> None:
    machine = _machine({"id": "m", "context": {"$js": "({ spawn }) => ({ ref: spawn('worker', { id: 'w' }) })"},
                        "on": {"PING": {"actions": {"type": "xstate.sendTo", "to": {"$js": "({ context }) => context.ref"},
                                                    "event": {"type": "PING"}}},
                               "STOP": {"actions": {"type": "xstate.stopChild",
                                                    "actorRef": {"$js": "({ context }) => context.ref"}}}}},
                       actors={"worker": {}})
    snapshot, _ = statekit.initial_transition(machine)
    snapshot, actions = statekit.transition(machine, snapshot, {"type": "PING"})
    assert [action.type for action in actions] == ["xstate.sendTo"]
    assert _ref(actions[0].params["to"]) == "w" and actions[0].params["event"] == {"type": "PING"}
    snapshot, actions = statekit.transition(machine, snapshot, {"type": "STOP"})
    assert [action.type for action in actions] == ["xstate.stopChild"] and snapshot.children == {}
    assert _ref(snapshot.context["ref"]) == "w"  # XState leaves the reference in context


def test_self_is_a_reference() -> None:
    output = _machine({"id": "m", "initial": "done", "states": {"done": {"type": "final"}},
                       "output": {"$js": "({ self }) => ({ me: self, id: self.id })"}})
    snapshot, _ = statekit.initial_transition(output)
    assert snapshot.status == "done"
    assert _ref(snapshot.output["me"]) == snapshot.output["id"]


_ACTING_ON_THE_ACTOR = (
    ("({ self }) => ({ n: self.getSnapshot().context.n })", "getSnapshot() on an actor", {"n": 0}),
    ("({ self }) => { self.send({ type: 'X' }); return {}; }", "send() on an actor", {"n": 0}),
    ("({ system }) => ({ r: system.get('x') === undefined })", "system.get()", {"n": 0, "r": True}),
)


@pytest.mark.parametrize(("code", "what", "context"), _ACTING_ON_THE_ACTOR)
def test_the_pure_transition_acts_on_an_actor_that_never_starts(code: str, what: str, context: Any) -> None:
    """As XState's pure transition (`createInertActorScope`): `self.send` reaches no one, `self.getSnapshot()`
    is the machine's initial snapshot, `system` holds only what this call registered."""
    machine = _machine({"id": "m", "context": {"n": 0}, "entry": {"type": "xstate.assign", "assignment": {"$js": code}}})
    snapshot, _ = statekit.initial_transition(machine)
    assert snapshot.status == "active", snapshot.error
    assert snapshot.context == context


@pytest.mark.parametrize(("code", "what", "context"), _ACTING_ON_THE_ACTOR)
def test_a_running_actor_refuses_what_acts_on_it(code: str, what: str, context: Any) -> None:
    """statekit's Actor runs no actor for the code to act on: it stops with an error, even when the
    code catches what was thrown (never a plausible trace)."""
    for source in (code, f"(args) => {{ try {{ ({code})(args); }} catch (error) {{}} return {{}}; }}"):
        machine = _machine({"id": "m", "context": {"n": 0}, "on": {"GO": {"actions": {
            "type": "xstate.assign", "assignment": {"$js": source}}}}})
        actor = Actor(machine).start()
        actor.send({"type": "GO"})
        assert actor.get_snapshot().status == "error"
        assert f"{what} acts on the running actor" in str(actor.get_snapshot().error)


def test_system_get_refuses_an_actor_it_cannot_tell_started() -> None:
    """XState's system drops an actor that does not start active; statekit does not run named logic
    (or a child machine) to tell, so `system.get` of one refuses; logic that starts active it finds."""
    config = {"id": "m", "context": {}, "entry": [
        {"type": "xstate.spawnChild", "src": "worker", "id": "w", "systemId": "named"},
        {"type": "xstate.spawnChild", "src": {"$expr": "fromCallback(() => {})"}, "id": "c", "systemId": "inline"},
        {"type": "xstate.assign", "assignment": {"found": {"$js": "({ system }) => system.get('inline').id"}}}]}
    snapshot, _ = statekit.initial_transition(_machine(config, actors={"worker": {}}))
    assert snapshot.status == "active", snapshot.error
    assert snapshot.context == {"found": "c"}
    config["entry"][2] = {"type": "xstate.assign", "assignment": {"found": {"$js": "({ system }) => system.get('named')"}}}
    snapshot, _ = statekit.initial_transition(_machine(config, actors={"worker": {}}))
    assert snapshot.status == "error" and "system.get() of an actor whose logic statekit does not run" in str(snapshot.error)


def test_a_guard_gets_no_actor() -> None:
    machine = _machine({"id": "m", "initial": "a", "states": {"a": {"on": {"GO": {
        "target": "b", "guard": {"type": "g", "code": "({ self, spawn }) => self === undefined && spawn === undefined"}}}},
        "b": {}}})
    snapshot, _ = statekit.initial_transition(machine)
    snapshot, _ = statekit.transition(machine, snapshot, {"type": "GO"})
    assert snapshot.value == "b"


def test_forward_to_nothing_fails_in_xstates_words_and_send_to_nothing_is_refused() -> None:
    forward = _machine({"id": "m", "on": {"E": {"actions": {"type": "xstate.sendTo",
                                                           "event": {"$js": "({ event }) => event"}}}}})
    snapshot, _ = statekit.initial_transition(forward)
    with pytest.raises(Exception, match="Attempted to forward event to undefined actor"):
        statekit.transition(forward, snapshot, {"type": "E"})
    send = _machine({"id": "m", "on": {"E": {"actions": {"type": "xstate.sendTo",
                                                        "to": {"$js": "({ context }) => context.nobody"},
                                                        "event": {"type": "X"}}}}})
    snapshot, _ = statekit.initial_transition(send)
    with pytest.raises(Exception, match="the machine itself"):  # XState would send to self
        statekit.transition(send, snapshot, {"type": "E"})


def test_cancel_takes_its_send_id_from_code() -> None:
    machine = _machine({"id": "m", "entry": [
        {"type": "xstate.raise", "event": {"type": "LATER"}, "id": "t", "delay": 100},
        {"type": "xstate.cancel", "sendId": {"$js": "() => 't'"}}]})
    _, actions = statekit.initial_transition(machine)
    assert [(action.type, action.params.get("sendId")) for action in actions][-1] == ("xstate.cancel", "t")


def test_spawn_child_keeps_inline_logic_and_child_machine_definitions_and_refuses_the_rest() -> None:
    machine = _machine({"id": "m", "entry": {"type": "xstate.spawnChild", "id": "c",
                                            "src": {"$expr": "fromPromise(() => Promise.resolve(42))"}}})
    snapshot, actions = statekit.initial_transition(machine)
    assert list(snapshot.children) == ["c"]
    assert actions[0].type == "xstate.spawnChild" and actions[0].params["src"] == {}  # XState's JSON of logic
    child_machine = _machine({"id": "m", "entry": {"type": "xstate.spawnChild", "src": {"$expr": "createMachine({})"}}})
    snapshot, _ = statekit.initial_transition(child_machine)
    assert snapshot.status == "error" and "cannot be simulated faithfully" in str(snapshot.error)
    # A child machine the reader rendered shows as its definition; one it could not says why not.
    definition = {"id": "(machine)", "key": "(machine)", "type": "atomic"}
    rendered = _machine({"id": "m", "entry": {"type": "xstate.spawnChild", "id": "kid",
                                             "src": {"$expr": "createMachine({})", "$definition": definition}}})
    snapshot, actions = statekit.initial_transition(rendered)
    assert snapshot.status == "active" and list(snapshot.children) == ["kid"]
    assert actions[0].params["src"] == definition
    unrendered = _machine({"id": "m", "entry": {"type": "xstate.spawnChild", "src": {
        "$expr": "createMachine({ invoke: { src: 'x' } })", "$unrendered": "statekit does not render 'invoke'"}}})
    snapshot, _ = statekit.initial_transition(unrendered)
    assert snapshot.status == "error" and "statekit does not render 'invoke'" in str(snapshot.error)


def _with_xstate_imports(names: list[str], logic: dict[str, str] | None = None) -> JsSandbox:
    sandbox = JsSandbox()
    sandbox.define({}, {name: "imported from 'xstate'" for name in names}, logic=logic)
    return sandbox


def test_inline_logic_and_child_machines_can_be_spawned_but_not_one_that_registers_a_system_id() -> None:
    sandbox = _with_xstate_imports(["fromCallback", "createMachine"], {"kept": "fromPromise"})
    machine = _machine({"id": "m", "context": {"$js": "({ spawn }) => ({ a: spawn(fromCallback(() => {})), "
                                               "b: spawn(createMachine({ entry: () => {}, states: { s: {} } })), "
                                               "c: spawn(kept) })"}}, sandbox=sandbox)
    snapshot, _ = statekit.initial_transition(machine)
    assert snapshot.status == "active", snapshot.error
    assert len(snapshot.children) == 3
    # XState catches what a child's start throws into the child's snapshot: the parent goes on.
    throwing = _machine({"id": "m", "context": {"$js": "({ spawn }) => ({ a: spawn(createMachine({ "
                                                "context: () => { throw new Error('child'); } })) })"}},
                        sandbox=_with_xstate_imports(["createMachine"]))
    snapshot, _ = statekit.initial_transition(throwing)
    assert snapshot.status == "active" and len(snapshot.children) == 1
    registering = _machine({"id": "m", "context": {"$js": "({ spawn }) => ({ a: spawn(createMachine({ "
                                                   "invoke: { src: 'x', systemId: 'shared' } })) })"}},
                           sandbox=_with_xstate_imports(["createMachine"]))
    snapshot, _ = statekit.initial_transition(registering)
    assert snapshot.status == "error" and "system id" in str(snapshot.error)


def test_xstate_helpers_exist_only_where_the_module_imports_them() -> None:
    imported = _machine({"id": "m", "initial": "a", "states": {"a": {"on": {"GO": {"actions": {
        "type": "xstate.raise", "event": {"type": "X"},
        "delay": {"$js": "({ event }) => { assertEvent(event, 'GO'); return 5; }"}}}}}}},
        sandbox=_with_xstate_imports(["assertEvent"]))
    snapshot, _ = statekit.initial_transition(imported)
    _, actions = statekit.transition(imported, snapshot, {"type": "GO"})
    assert actions[0].params["delay"] == 5
    not_imported = _machine({"id": "m", "context": {"$js": "() => ({ f: typeof fromPromise })"}})
    snapshot, _ = statekit.initial_transition(not_imported)
    assert snapshot.context == {"f": "undefined"}


def test_a_sandbox_made_again_after_a_fatal_error_never_reuses_a_session_id() -> None:
    sandbox = JsSandbox(time_limit=0.2)
    machine = _machine({"id": "m", "context": {"refs": []}, "on": {
        "ADD": {"actions": {"type": "xstate.assign", "assignment": {
            "refs": {"$js": "({ context, spawn }) => [...context.refs, spawn('worker')]"}}}},
        "SPIN": {"actions": {"type": "xstate.assign", "assignment": {"$js": "() => { for (;;) {} }"}}}}},
        actors={"worker": {}}, sandbox=sandbox)
    snapshot, _ = statekit.initial_transition(machine)
    snapshot, _ = statekit.transition(machine, snapshot, {"type": "ADD"})
    with pytest.raises(Exception, match="time limit"):  # the context is dropped and made again
        statekit.transition(machine, snapshot, {"type": "SPIN"})
    snapshot, _ = statekit.transition(machine, snapshot, {"type": "ADD"})
    ids = [_ref(ref) for ref in snapshot.context["refs"]]
    assert len(set(ids)) == 2 and set(snapshot.children) == set(ids)
