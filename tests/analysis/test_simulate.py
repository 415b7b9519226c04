"""simulate_machine through the tool registry: the step shape, guards, limits, errors, YAML."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from statekit import tools
from statekit.analysis.simulate import MAX_EVENTS
from statekit.errors import ToolError

PLAYER = json.loads((Path(__file__).resolve().parents[2] / "examples" / "machines" / "player.json").read_text())

STEP_KEYS = {"event", "value", "context", "status", "tags", "output", "actions"}


def simulate(machine: Any, events: list[Any], **arguments: Any) -> dict[str, Any]:
    return tools.call("simulate_machine", {"machine": machine, "events": events, **arguments})


def invalid(arguments: dict[str, Any]) -> ToolError:
    with pytest.raises(ToolError) as raised:
        tools.call("simulate_machine", arguments)
    assert raised.value.code == "invalid_input"
    return raised.value


# -- step shape -------------------------------------------------------------------------------


def test_first_step_is_xstate_init() -> None:
    result = simulate(PLAYER, [])
    assert len(result["steps"]) == 1
    init = result["steps"][0]
    assert set(init) == STEP_KEYS
    assert init["event"] == {"type": "xstate.init"}
    assert init["value"] == "paused" and init["context"] == {"plays": 0}
    assert init["status"] == "active" and init["output"] is None and init["actions"] == [] and init["tags"] == []
    assert result["execution"]["eventsProcessed"] == 0 and result["execution"]["stopped"] is None


def test_steps_follow_the_events_with_actions_in_order() -> None:
    result = simulate(PLAYER, ["PLAY", {"type": "PAUSE"}, "PLAY", "STOP"])
    steps = result["steps"]
    assert [s["event"]["type"] for s in steps] == ["xstate.init", "PLAY", "PAUSE", "PLAY", "STOP"]
    assert [s["value"] for s in steps] == ["paused", "playing", "paused", "playing", "stopped"]
    # entry runs, then the delayed `after` event is scheduled; leaving runs exit, then cancels it.
    assert steps[1]["actions"] == ["startAudio", "xstate.raise"]
    assert steps[2]["actions"] == ["stopAudio", "xstate.cancel"]
    assert steps[4]["actions"] == ["stopAudio", "xstate.cancel"]
    assert steps[1]["context"] == {"plays": 0, "lastCommand": "PLAY"}
    assert steps[1]["tags"] == ["audible"] and steps[2]["tags"] == []
    assert [s["status"] for s in steps] == ["active", "active", "active", "active", "done"]
    execution = result["execution"]
    assert execution["eventsProcessed"] == 4 and execution["eventsGiven"] == 4
    assert execution["semantics"] == "xstate@5" and execution["engine"] == "statekit"


def test_actions_of_exit_transition_and_entry_are_in_document_order() -> None:
    machine = {
        "initial": "a",
        "entry": "rootEntry",
        "states": {
            "a": {"exit": ["exitA1", "exitA2"], "on": {"GO": {"target": "b", "actions": ["t1", "t2"]}}},
            "b": {"entry": "entryB", "initial": "b1", "states": {"b1": {"entry": "entryB1"}}},
        },
    }
    steps = simulate(machine, ["GO"])["steps"]
    assert steps[0]["actions"] == ["rootEntry"]
    assert steps[1]["actions"] == ["exitA1", "exitA2", "t1", "t2", "entryB", "entryB1"]
    assert steps[1]["value"] == {"b": "b1"}


def test_tags_are_sorted_and_deduplicated() -> None:
    machine = {
        "initial": "p",
        "states": {"p": {"tags": ["zeta", "alpha"], "type": "parallel",
                         "states": {"x": {"tags": ["mid", "alpha"]}, "y": {"tags": "beta"}}}},
    }
    assert simulate(machine, [])["steps"][0]["tags"] == ["alpha", "beta", "mid", "zeta"]


def test_output_is_null_until_done() -> None:
    machine = {
        "initial": "work",
        "output": {"result": "finished"},
        "states": {
            "work": {"initial": "s1", "states": {"s1": {"on": {"NEXT": "s2"}}, "s2": {"type": "final", "output": 2}},
                     "onDone": "end"},
            "end": {"type": "final"},
        },
    }
    steps = simulate(machine, ["NEXT"])["steps"]
    assert steps[0]["output"] is None and steps[0]["status"] == "active"
    assert steps[1]["status"] == "done"
    assert steps[1]["output"] == {"result": "finished"}
    assert steps[1]["value"] == "end"


def test_events_after_done_change_nothing() -> None:
    steps = simulate(PLAYER, ["PLAY", "STOP", "PLAY"])["steps"]
    assert steps[3]["value"] == "stopped" and steps[3]["status"] == "done" and steps[3]["actions"] == []


def test_bare_string_events_equal_event_objects() -> None:
    as_strings = simulate(PLAYER, ["PLAY", "PAUSE"])
    as_objects = simulate(PLAYER, [{"type": "PLAY"}, {"type": "PAUSE"}])
    assert as_strings == as_objects


def test_delayed_events_are_fed_by_name() -> None:
    steps = simulate(PLAYER, ["PLAY", "xstate.after.30000.player.playing"])["steps"]
    assert steps[2]["value"] == "paused"


def test_result_is_plain_json() -> None:
    result = simulate(PLAYER, ["PLAY", "PAUSE"])
    assert json.loads(json.dumps(result)) == result


# -- payloads and context ---------------------------------------------------------------------

SETTER: dict[str, Any] = {
    "initial": "idle",
    "context": {"value": None, "history": []},
    "states": {
        "idle": {
            "on": {
                "SET": {"actions": {"type": "xstate.assign", "assignment": {"value": "set"}}},
                "SAVE": {"target": "saved", "actions": "persist"},
            }
        },
        "saved": {"type": "final"},
    },
}


def test_payloads_are_kept_in_the_step_event() -> None:
    steps = simulate(SETTER, [{"type": "SET", "value": 42, "nested": {"a": [1, 2]}}])["steps"]
    assert steps[1]["event"] == {"type": "SET", "value": 42, "nested": {"a": [1, 2]}}
    assert steps[1]["context"] == {"value": "set", "history": []}


def test_payloads_reach_context_through_a_setup_assign() -> None:
    # Config data cannot compute from the event, but the engine passes payloads to Python
    # assigners: the same event objects the tool accepts reach `args.event`.
    from statekit import assign, initial_transition, setup, transition

    machine = setup(actions={"store": assign({"value": lambda args, params: args.event["value"]})}).create_machine(
        {"initial": "idle", "context": {"value": None}, "states": {"idle": {"on": {"SET": {"actions": "store"}}}}}
    )
    snapshot, _ = initial_transition(machine)
    snapshot, _ = transition(machine, snapshot, {"type": "SET", "value": {"deep": [1, "x"]}})
    assert snapshot.context == {"value": {"deep": [1, "x"]}}


def test_input_is_given_to_the_init_event() -> None:
    result = simulate({"initial": "a", "states": {"a": {}}}, [], input={"user": "ann"})
    assert result["steps"][0]["status"] == "active"


# -- guards -----------------------------------------------------------------------------------

GUARDED: dict[str, Any] = {
    "id": "g",
    "initial": "start",
    "states": {
        "start": {
            "on": {
                "GO": [
                    {"target": "fast", "guard": {"type": "xstate.and", "guards": ["isFast", {"type": "xstate.not", "guard": "isBlocked"}]}},
                    {"target": "slow", "guard": "isSlow"},
                    {"target": "fallback"},
                ]
            }
        },
        "fast": {},
        "slow": {},
        "fallback": {},
    },
}


def test_unlisted_guards_are_assumed_true_and_reported() -> None:
    result = simulate(GUARDED, ["GO"])
    assert result["normalization"]["assumedGuards"] == ["isBlocked", "isFast", "isSlow"]
    # isFast true, isBlocked true -> not(isBlocked) false -> the second candidate (isSlow true).
    assert result["steps"][1]["value"] == "slow"


@pytest.mark.parametrize(
    ("guards", "expected", "assumed"),
    [
        ({"isBlocked": False}, "fast", ["isFast", "isSlow"]),
        ({"isBlocked": False, "isFast": False}, "slow", ["isSlow"]),
        ({"isFast": False, "isSlow": False}, "fallback", ["isBlocked"]),
        ({"isFast": True, "isBlocked": False, "isSlow": False}, "fast", []),
    ],
)
def test_static_guard_results(guards: dict[str, bool], expected: str, assumed: list[str]) -> None:
    result = simulate(GUARDED, ["GO"], guards=guards)
    assert result["steps"][1]["value"] == expected
    assert result["normalization"]["assumedGuards"] == assumed


def test_guards_not_in_the_machine_are_not_assumed() -> None:
    result = simulate(PLAYER, ["PLAY"], guards={"unused": False})
    assert result["normalization"]["assumedGuards"] == []
    assert result["steps"][1]["value"] == "playing"


@pytest.mark.parametrize("guards", [[], "isFast", {"isFast": "yes"}, {"isFast": 1}, {"isFast": None}])
def test_malformed_guards_are_invalid_input(guards: Any) -> None:
    invalid({"machine": GUARDED, "events": ["GO"], "guards": guards})


def test_invoked_actors_are_assumed_and_reported() -> None:
    machine = {"initial": "a", "states": {"a": {"invoke": {"src": "loader", "id": "load", "onDone": "b"}}, "b": {}}}
    result = simulate(machine, ["xstate.done.actor.load"])
    assert result["normalization"]["assumedActors"] == ["loader"]
    assert result["steps"][1]["value"] == "b"


# -- limits and invalid input -----------------------------------------------------------------


def test_max_events_are_accepted() -> None:
    result = simulate(PLAYER, ["PLAY", "PAUSE"] * (MAX_EVENTS // 2))
    assert MAX_EVENTS == 100
    assert len(result["steps"]) == MAX_EVENTS + 1
    assert result["execution"]["eventsProcessed"] == MAX_EVENTS


def test_one_event_over_the_limit_is_invalid_input() -> None:
    error = invalid({"machine": PLAYER, "events": ["PLAY"] * (MAX_EVENTS + 1)})
    assert "100" in error.message


@pytest.mark.parametrize(
    "events",
    ["PLAY", {"type": "PLAY"}, [1], [None], [{"type": ""}], [""], [{"kind": "PLAY"}], [{"type": 3}], ["*"], [["PLAY"]]],
)
def test_malformed_events_are_invalid_input(events: Any) -> None:
    invalid({"machine": PLAYER, "events": events})


def test_missing_machine_is_invalid_input() -> None:
    invalid({"events": []})


@pytest.mark.parametrize(
    ("machine", "code"),
    [
        ({"initial": "a", "states": {"a": {"on": {"GO": "nowhere"}}}}, "unknown_target"),
        ({"states": {"a": {}, "b": {}}}, "missing_initial"),
        ({"initial": "zz", "states": {"a": {}}}, "unknown_initial"),
        ({"initial": "a", "states": {"a": {"on": {"": "a"}}}}, "empty_event_descriptor"),
    ],
)
def test_machines_that_cannot_run_are_invalid_input_with_issues(machine: dict[str, Any], code: str) -> None:
    error = invalid({"machine": machine, "events": []})
    issues = error.details["issues"]
    assert code in {i["code"] for i in issues}
    assert all(i["severity"] == "error" for i in issues)
    assert error.to_dict()["issues"] == issues


@pytest.mark.parametrize(
    ("machine", "path"),
    [
        ({"initial": "a", "states": {"a": {"on": {"GO": {"actions": [{"type": 1}]}}}}}, "states.a.on.GO.actions[0]"),
        ({"initial": "a", "states": {"a": {"entry": 5}}}, "states.a.entry"),
        ({"states": []}, "states"),
    ],
)
def test_malformed_configs_are_invalid_input_with_a_path(machine: dict[str, Any], path: str) -> None:
    error = invalid({"machine": machine, "events": []})
    assert error.details["issues"] == [
        {"code": "invalid_config", "severity": "error", "message": error.details["issues"][0]["message"], "path": path}
    ]


# -- a machine that throws mid-run ------------------------------------------------------------

THROWS: dict[str, Any] = {
    "id": "t",
    "initial": "a",
    "context": {"n": 0},
    "states": {
        "a": {
            "on": {
                "NEXT": "b",
                "BOOM": {"actions": {"type": "xstate.sendTo", "to": "ghost", "event": {"type": "HELLO"}}},
            }
        },
        "b": {"on": {"NEXT": "a"}},
    },
}


def test_throwing_machine_ends_with_an_error_step() -> None:
    result = simulate(THROWS, ["NEXT", "NEXT", "BOOM", "NEXT", "NEXT"])
    steps = result["steps"]
    assert len(steps) == 4  # init + NEXT + NEXT + the failing BOOM; later events are not run
    last = steps[-1]
    assert last["event"] == {"type": "BOOM"}
    assert last["status"] == "error"
    assert "ghost" in last["error"]
    assert last["value"] == "a" and last["actions"] == [] and last["output"] is None
    execution = result["execution"]
    assert execution["stopped"] is not None and "BOOM" in execution["stopped"]
    assert execution["eventsGiven"] == 5 and execution["eventsProcessed"] == 3
    assert all("error" not in step for step in steps[:-1])


LOOPS: list[dict[str, Any]] = [
    {"initial": "idle", "states": {"idle": {"on": {"GO": "a"}}, "a": {"always": "b"}, "b": {"always": "a"}}},
    {"initial": "idle", "states": {"idle": {"on": {"GO": {"actions": {"type": "xstate.raise", "event": {"type": "GO"}}}}}}},
]


def require_bounded_simulation(machine: dict[str, Any]) -> None:
    """Fail fast instead of hanging when the tool would run a loop without a microstep limit."""
    from statekit.analysis.simulate import ImplementedMachine, build_simulation_machine
    from statekit.model import parse_machine

    built, _ = build_simulation_machine(ImplementedMachine.of_config(parse_machine(machine)), None)
    if built.max_iterations is None:
        pytest.fail("simulate_machine builds its machine without max_iterations: this loop would never return")


@pytest.mark.parametrize("machine", LOOPS, ids=["always-cycle", "raise-loop"])
def test_infinite_loops_stop_with_an_error_step(machine: dict[str, Any]) -> None:
    require_bounded_simulation(machine)
    result = simulate(machine, ["GO", "GO"])
    assert len(result["steps"]) == 2
    assert result["steps"][-1]["status"] == "error"
    assert result["execution"]["stopped"] is not None


def test_guard_of_stateIn_with_an_unknown_id_stops_with_an_error_step() -> None:
    machine = {"initial": "a", "states": {"a": {"on": {"GO": {"target": "b", "guard": {"type": "xstate.stateIn", "state": "#nope"}}}}, "b": {}}}
    result = simulate(machine, ["GO"])
    assert result["steps"][-1]["status"] == "error"
    assert result["execution"]["stopped"]


# -- text input -------------------------------------------------------------------------------

# Written as people write YAML: `on:` and `30000:` unquoted (YAML 1.1 would read a boolean and
# an integer key).
PLAYER_YAML = """
id: player
initial: paused
context:
  plays: 0
states:
  paused:
    on:
      PLAY:
        target: playing
        actions:
          type: xstate.assign
          assignment: {lastCommand: PLAY}
  playing:
    entry: startAudio
    exit: stopAudio
    tags: [audible]
    after:
      30000: paused
    on: {PAUSE: paused, STOP: stopped}
  stopped:
    type: final
"""


def test_yaml_text_input_equals_the_object() -> None:
    events = ["PLAY", "xstate.after.30000.player.playing", "PLAY", "STOP"]
    assert simulate(PLAYER_YAML, events) == simulate(PLAYER, events)


def test_json_text_and_wrapped_input_equal_the_object() -> None:
    events = ["PLAY", "PAUSE"]
    assert simulate(json.dumps(PLAYER), events) == simulate(PLAYER, events)
    assert simulate({"machine": PLAYER}, events) == simulate(PLAYER, events)
    wrapped_yaml = "machine:\n" + "".join(f"  {line}\n" for line in PLAYER_YAML.strip().splitlines())
    assert simulate(wrapped_yaml, events) == simulate(PLAYER, events)


def test_cond_makes_the_machine_refused_with_an_issue() -> None:
    error = invalid({"machine": {"initial": "a", "states": {"a": {"on": {"GO": {"cond": "x"}}}}}, "events": []})
    assert [i["code"] for i in error.details["issues"]] == ["invalid_config"]
    assert error.details["issues"][0]["path"].endswith(".cond")


def test_yaml_unquoted_on_key_is_the_on_key() -> None:
    text = "initial: a\nstates:\n  a:\n    on:\n      GO: b\n  b: {}\n"
    assert simulate(text, ["GO"])["steps"][-1]["value"] == "b"


def test_quoted_and_unquoted_yaml_keys_agree() -> None:
    events = ["PLAY", "xstate.after.30000.player.playing"]
    quoted = PLAYER_YAML.replace("30000: paused", '"30000": paused').replace(" on:", ' "on":')
    assert quoted.count('"on":') == 2 and '"30000"' in quoted
    assert simulate(quoted, events) == simulate(PLAYER_YAML, events) == simulate(PLAYER, events)


@pytest.mark.parametrize("text", ["", "   ", "{", "states: [", "- a\n- b", "42", "a: b: c"])
def test_bad_text_is_invalid_input(text: str) -> None:
    invalid({"machine": text, "events": []})


def test_summary_text_names_steps_and_assumptions() -> None:
    spec = tools.get("simulate_machine")
    assert spec.summarize is not None
    summary = spec.summarize(simulate(GUARDED, ["GO"]))
    assert "xstate.init -> start" in summary and "GO -> slow" in summary
    assert "Assumed true: isBlocked, isFast, isSlow" in summary


# -- inline JavaScript (run in the QuickJS sandbox, never by Python) --------------------------

INLINE: dict[str, Any] = {
    "initial": "idle",
    "context": {"total": 0, "last": None},
    "states": {
        "idle": {
            "on": {
                "ADD": {"actions": {"type": "xstate.assign", "assignment": {
                    "total": {"$js": "({ context, event }) => context.total + event.amount"},
                    "last": {"$js": "({ event }) => event.note ?? null"},
                }}},
                "FINISH": [
                    {"target": "big", "guard": {"type": "isBig", "code": "({ context }) => context.total > 10"}},
                    {"target": "small"},
                ],
            }
        },
        "big": {"type": "final"},
        "small": {"type": "final"},
    },
}


def test_event_payloads_reach_context_through_an_inline_assign() -> None:
    steps = simulate(INLINE, [{"type": "ADD", "amount": 4, "note": "first"}, {"type": "ADD", "amount": 9}, "FINISH"])["steps"]
    assert [s["context"] for s in steps[1:3]] == [{"total": 4, "last": "first"}, {"total": 13, "last": None}]
    assert steps[3]["value"] == "big" and steps[3]["status"] == "done"


def test_inline_guards_are_evaluated_not_assumed() -> None:
    result = simulate(INLINE, [{"type": "ADD", "amount": 1}, "FINISH"])
    assert result["steps"][-1]["value"] == "small"
    assert result["normalization"]["assumedGuards"] == []
    # A static result given for the same name is taken as given.
    forced = simulate(INLINE, [{"type": "ADD", "amount": 1}, "FINISH"], guards={"isBig": True})
    assert forced["steps"][-1]["value"] == "big"


def test_inline_code_sees_no_host() -> None:
    probe = "() => [typeof require, typeof process, typeof fetch, typeof std, typeof os, typeof setTimeout].join(',')"
    machine = {"initial": "a", "context": {}, "states": {"a": {"on": {"GO": {"actions": {
        "type": "xstate.assign", "assignment": {"host": {"$js": probe}}}}}}}}
    host = simulate(machine, ["GO"])["steps"][-1]["context"]["host"]
    assert set(host.split(",")) == {"undefined"}
