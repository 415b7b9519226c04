"""Routes (statekit/gate/guidance.py): the engine with the workflow's guards decides each step.

The end-to-end proof is tests/gate/test_gate_stale_client.py (a client that never re-lists
finishes workflows from refusals and the status tool); these tests hold the route finder to
its rules one by one.
"""

from __future__ import annotations

from typing import Any

import statekit
from statekit.engine import Implementations, create_machine, initial_transition
from statekit.engine.sandbox import JsSandbox
from statekit.gate import Gate
from statekit.gate.guidance import MAX_STATES, RouteFinder
from statekit.gate.wayfinding import route_finder


def _counter_gate(guard: Any) -> Gate:
    workflow = {
        "id": "counter",
        "initial": "counting",
        "context": {"n": 0},
        "states": {
            "counting": {"on": {"ADD": {"actions": "add"}, "DONE": {"target": "done", "guard": guard}}},
            "done": {"on": {"REOPEN": "counting"}},
        },
    }
    implementations = Implementations(
        guards={"twoAdded": lambda args, params: args.context["n"] >= 2,
                "signed": lambda args, params: bool(args.event["arguments"].get("signature"))},
        actions={"add": statekit.assign({"n": lambda args, params: args.context["n"] + 1})},
        # Inline JavaScript guards run in statekit's sandbox.
        evaluator=JsSandbox() if isinstance(guard, dict) else None,
    )
    machine = create_machine(workflow, implementations)
    gate = Gate(machine)
    gate.bind("add", "counting", "ADD")
    gate.bind("finish", "counting", "DONE")
    gate.bind("reopen", "done", "REOPEN")
    return gate


def _route(gate: Gate, tool: str, callable_tools: list[str] | None = None) -> dict[str, Any]:
    snapshot, _ = initial_transition(gate.machine)
    names = callable_tools if callable_tools is not None else [b.tool for b in gate.bindings()]
    return route_finder(gate).routes(snapshot, (), 0.0, [tool], names)[tool].to_json()


def test_a_guard_on_the_context_is_decided_by_the_engine() -> None:
    route = _route(_counter_gate("twoAdded"), "reopen")
    assert [step["call"] for step in route["steps"]] == ["add", "add", "finish"]
    assert all("assumes" not in step for step in route["steps"])


def test_a_guard_on_the_arguments_is_assumed_and_said_to_be() -> None:
    route = _route(_counter_gate("signed"), "reopen")
    assert route["steps"] == [
        {"call": "finish", "event": "DONE", "to": "done", "assumes": [{"guard": "signed", "passes": True}]}
    ]


def test_inline_javascript_guards_are_run_unless_they_read_the_event() -> None:
    on_context = _route(_counter_gate({"type": "onContext", "code": "({ context }) => context.n >= 1"}), "reopen")
    assert [step["call"] for step in on_context["steps"]] == ["add", "finish"]
    on_event = _route(_counter_gate({"type": "onEvent", "code": "({ event }) => event.arguments.ok === true"}), "reopen")
    assert on_event["steps"] == [{"call": "finish", "event": "DONE", "to": "done",
                                  "assumes": [{"guard": "(inline guard)", "passes": True}]}]


def test_only_tools_the_client_can_list_are_steps() -> None:
    route = _route(_counter_gate("twoAdded"), "reopen", callable_tools=["finish", "reopen"])
    assert route["reachable"] is False
    assert route["reason"].startswith("no sequence of tool calls and timers")


def test_an_endless_state_space_is_searched_to_the_bound_and_says_so() -> None:
    # `add` grows the context for ever; `finish` is not callable, so `reopen` is never reached.
    route = _route(_counter_gate("twoAdded"), "reopen", callable_tools=["add", "reopen"])
    assert route == {"tool": "reopen", "reachable": False,
                     "reason": f"no route found within the first {MAX_STATES} workflow states searched"}


def test_a_repeated_question_is_answered_from_the_cache(monkeypatch: Any) -> None:
    gate = _counter_gate("twoAdded")
    searches: list[list[str]] = []
    search = RouteFinder._search

    def counted(self: RouteFinder, *args: Any) -> Any:
        searches.append(list(args[3]))
        return search(self, *args)

    monkeypatch.setattr(RouteFinder, "_search", counted)
    first = _route(gate, "reopen", callable_tools=["add", "reopen"])
    assert _route(gate, "reopen", callable_tools=["add", "reopen"]) == first
    assert searches == [["reopen"]]
    _route(gate, "reopen")  # another catalog is another question
    assert len(searches) == 2
