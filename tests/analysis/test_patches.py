"""apply_machine_patches: every operation, every error, and diff -> patches -> apply round trips."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from machine_strategies import machine_configs
from statekit import tools
from statekit.analysis.diff import diff_models
from statekit.analysis.patch_catalog import OPERATIONS, patches_json_schema
from statekit.analysis.patches import apply_patches, comparable_config
from statekit.analysis.patchgen import generate_patches
from statekit.errors import ToolError
from statekit.model import machine_to_config, parse_machine
from statekit.model.resolve import resolve_targets

PLAYER: dict[str, Any] = {
    "id": "player",
    "initial": "paused",
    "states": {
        "paused": {"on": {"PLAY": "playing"}},
        "playing": {
            "initial": "normal",
            "states": {"normal": {"on": {"FAST": "fast"}}, "fast": {"on": {"SLOW": "#player.playing.normal"}}},
            "on": {"PAUSE": "paused"},
        },
    },
}


def apply(patches: list[dict[str, Any]], machine: dict[str, Any] | None = None) -> dict[str, Any]:
    result = tools.call("apply_machine_patches", {"machine": machine or PLAYER, "patches": patches})
    document: dict[str, Any] = result["document"]
    return document


def error_of(patches: Any, machine: dict[str, Any] | None = None) -> str:
    with pytest.raises(ToolError) as caught:
        tools.call("apply_machine_patches", {"machine": machine or PLAYER, "patches": patches})
    assert caught.value.code == "invalid_input"
    return caught.value.message


# --- the spec example and the result shape ---------------------------------------------------


def test_spec_example_adds_the_transition() -> None:
    result = tools.call("apply_machine_patches", {
        "machine": PLAYER,
        "patches": [{"op": "createTransition", "sourceId": "player.playing", "targetId": "player.paused",
                     "eventType": "STOP"}],
    })
    assert result["format"] == "xstate-json"
    assert result["document"]["states"]["playing"]["on"] == {"PAUSE": "paused", "STOP": "paused"}
    assert result["patches"][0]["op"] == "createTransition"
    assert "Added transition `player.playing` --STOP--> `player.paused`" in result["behavioralSummary"]


def test_yaml_output_and_unknown_format() -> None:
    result = tools.call("apply_machine_patches", {"machine": PLAYER, "patches": [], "to": "xstate-yaml"})
    assert result["format"] == "xstate-yaml"
    assert isinstance(result["document"], str) and "initial: paused" in result["document"]
    with pytest.raises(ToolError) as caught:
        tools.call("apply_machine_patches", {"machine": PLAYER, "patches": [], "to": "no-such-format"})
    assert caught.value.code == "invalid_input"


def test_apply_does_not_mutate_its_input() -> None:
    before = json.dumps(PLAYER, sort_keys=True)
    apply([{"op": "renameState", "stateId": "player.playing", "newKey": "active"},
           {"op": "deleteState", "stateId": "player.paused"}])
    assert json.dumps(PLAYER, sort_keys=True) == before


# --- each operation ---------------------------------------------------------------------------


def test_create_state_appends_or_inserts() -> None:
    document = apply([{"op": "createState", "parentId": "player", "key": "stopped", "type": "final"},
                      {"op": "createState", "parentId": "player", "key": "loading", "index": 0}])
    assert list(document["states"]) == ["loading", "paused", "playing", "stopped"]
    assert document["states"]["stopped"] == {"type": "final"}


def test_create_history_state() -> None:
    document = apply([{"op": "createState", "parentId": "player.playing", "key": "hist", "type": "history",
                       "history": "deep"}])
    assert document["states"]["playing"]["states"]["hist"] == {"type": "history", "history": "deep"}


def test_rename_state_keeps_targets_and_initial() -> None:
    document = apply([{"op": "renameState", "stateId": "player.playing", "newKey": "active"},
                      {"op": "renameState", "stateId": "player.paused", "newKey": "idle"}])
    assert document["initial"] == "idle"
    assert document["states"]["idle"]["on"]["PLAY"] == "active"
    active = document["states"]["active"]
    assert active["on"]["PAUSE"] == "idle"
    # An absolute `#player.playing.normal` target is rewritten to the state's new id.
    model = parse_machine(document)
    fast = model.nodes["player.active.fast"]
    assert fast.transitions[0].targets is not None
    assert fast.transitions[0].targets[0] in ("normal", "#player.active.normal")


def test_rename_root_changes_the_machine_id() -> None:
    document = apply([{"op": "renameState", "stateId": "player", "newKey": "jukebox"}])
    assert document["id"] == "jukebox"
    model = parse_machine(document)
    assert "jukebox.playing.normal" in model.nodes
    slow = model.nodes["jukebox.playing.fast"].transitions[0]
    assert [node.id for node in resolve_targets(model, slow) if node] == ["jukebox.playing.normal"]


def test_move_state_rewrites_targets_and_clears_initial() -> None:
    document = apply([{"op": "moveState", "stateId": "player.playing.normal", "parentId": "player"}])
    assert list(document["states"]) == ["paused", "playing", "normal"]
    assert "initial" not in document["states"]["playing"]
    model = parse_machine(document)
    fast = model.nodes["player.playing.fast"].transitions[0]
    normal = model.nodes["player.normal"].transitions[0]
    assert [n.id for n in resolve_targets(model, fast) if n] == ["player.normal"]
    assert [n.id for n in resolve_targets(model, normal) if n] == ["player.playing.fast"]


def test_set_state_id_keeps_targets() -> None:
    document = apply([{"op": "setStateId", "stateId": "player.playing.normal", "id": "normal"}])
    assert document["states"]["playing"]["states"]["normal"]["id"] == "normal"
    model = parse_machine(document)
    assert "normal" in model.nodes
    slow = model.nodes["player.playing.fast"].transitions[0]
    assert [n.id for n in resolve_targets(model, slow) if n] == ["normal"]
    document = apply([{"op": "setStateId", "stateId": "normal", "id": None}], document)
    assert "id" not in document["states"]["playing"]["states"]["normal"]


def test_move_state_reorders_within_its_parent() -> None:
    document = apply([{"op": "moveState", "stateId": "player.playing", "parentId": "player", "index": 0}])
    assert list(document["states"]) == ["playing", "paused"]


def test_delete_state_drops_transitions_into_it() -> None:
    document = apply([{"op": "deleteState", "stateId": "player.playing"}])
    assert list(document["states"]) == ["paused"]
    assert "on" not in document["states"]["paused"]


def test_set_initial_state_and_clear_it() -> None:
    document = apply([{"op": "setInitialState", "stateId": "player.playing", "initialStateId": "player.playing.fast"}])
    assert document["states"]["playing"]["initial"] == "fast"
    document = apply([{"op": "setInitialState", "stateId": "player", "initialStateId": None}])
    assert "initial" not in document


def test_set_state_type() -> None:
    document = apply([{"op": "setStateType", "stateId": "player.playing", "type": "parallel"}])
    assert document["states"]["playing"]["type"] == "parallel"
    document = apply([{"op": "setStateType", "stateId": "player.paused", "type": "history", "history": "deep",
                       "historyTargetId": "player.playing"}])
    assert document["states"]["paused"]["type"] == "history"
    assert document["states"]["paused"]["history"] == "deep"
    assert document["states"]["paused"]["target"] == "playing"
    document = apply([{"op": "setStateType", "stateId": "player.paused", "type": "history"},
                      {"op": "setStateType", "stateId": "player.paused", "type": None}])
    assert "type" not in document["states"]["paused"] and "history" not in document["states"]["paused"]


def test_create_transition_kinds_follow_the_event_type() -> None:
    machine = {"id": "m", "initial": "a", "states": {"a": {"invoke": {"src": "loader", "id": "load"}}, "b": {}}}
    document = apply([
        {"op": "createTransition", "sourceId": "m.a", "eventType": "", "targetId": "m.b", "guard": "ready"},
        {"op": "createTransition", "sourceId": "m.a", "eventType": "xstate.after.1000.m.a", "targetId": "m.b"},
        {"op": "createTransition", "sourceId": "m.a", "eventType": "GO", "delay": 500, "targetId": "m.b"},
        {"op": "createTransition", "sourceId": "m.a", "eventType": "xstate.done.actor.load", "targetId": "m.b"},
        {"op": "createTransition", "sourceId": "m.a", "eventType": "xstate.error.actor.load"},
        {"op": "createTransition", "sourceId": "m", "eventType": "xstate.done.state.m", "actions": ["finish"]},
    ], machine)
    a = document["states"]["a"]
    assert a["always"] == {"target": "b", "guard": "ready"}
    assert a["after"] == {"1000": "b", "500": "b"}
    assert a["invoke"]["onDone"] == "b"
    assert a["invoke"]["onError"] == {}
    assert document["onDone"] == {"actions": "finish"}


def test_create_transition_with_priority_and_multiple_targets() -> None:
    machine = {"id": "m", "type": "parallel", "states": {
        "x": {"initial": "x1", "states": {"x1": {}, "x2": {}}},
        "y": {"initial": "y1", "states": {"y1": {}, "y2": {}}},
        "z": {"on": {"GO": {"target": "#m.x.x1", "guard": "late"}}},
    }}
    document = apply([{"op": "createTransition", "sourceId": "m.z", "eventType": "GO",
                       "targetId": ["m.x.x2", "m.y.y2"], "guard": "early", "priority": 0}], machine)
    assert document["states"]["z"]["on"]["GO"] == [
        {"target": ["x.x2", "y.y2"], "guard": "early"},
        {"target": "#m.x.x1", "guard": "late"},
    ]


def test_update_transition_fields_and_null_clears() -> None:
    machine = {"id": "m", "initial": "a", "states": {
        "a": {"on": {"GO": [{"target": "b", "guard": "g1", "actions": ["x", "y"], "reenter": True,
                             "description": "first", "meta": {"k": 1}},
                            {"target": "c"}]}},
        "b": {}, "c": {},
    }}
    document = apply([{"op": "updateTransition", "transitionId": "m.a:GO:0", "guard": None, "actions": ["y", "x"],
                       "reenter": None, "description": None, "meta": None, "targetId": "m.c", "priority": 1}], machine)
    assert document["states"]["a"]["on"]["GO"] == ["c", {"target": "c", "actions": ["y", "x"]}]
    document = apply([{"op": "updateTransition", "transitionId": "m.a:GO:1", "eventType": "STOP", "targetId": None}],
                     machine)
    assert document["states"]["a"]["on"]["STOP"] == {}
    assert isinstance(document["states"]["a"]["on"]["GO"], dict)


def test_update_transition_moves_its_source_and_keeps_the_target() -> None:
    document = apply([{"op": "updateTransition", "transitionId": "player.paused:PLAY:0", "sourceId": "player.playing.fast"}])
    assert "on" not in document["states"]["paused"]
    moved = parse_machine(document).nodes["player.playing.fast"].transitions
    assert [(t.event, t.targets) for t in moved] == [("SLOW", ("#player.playing.normal",)), ("PLAY", ("#player.playing",))]


def test_delete_transition() -> None:
    document = apply([{"op": "deleteTransition", "transitionId": "player.playing:PAUSE:0"}])
    assert "on" not in document["states"]["playing"]


def test_entry_exit_actions_keep_order_and_clear() -> None:
    actions = ["b", {"type": "a", "params": {"n": 1}}, "c"]
    document = apply([{"op": "setEntryActions", "stateId": "player.paused", "actions": actions},
                      {"op": "setExitActions", "stateId": "player.paused", "actions": ["z"]}])
    assert document["states"]["paused"]["entry"] == actions
    assert document["states"]["paused"]["exit"] == "z"
    document = apply([{"op": "setExitActions", "stateId": "player.paused", "actions": ["z"]},
                      {"op": "setExitActions", "stateId": "player.paused", "actions": None}])
    assert "exit" not in document["states"]["paused"]


def test_invoke_operations() -> None:
    document = apply([
        {"op": "createInvoke", "stateId": "player.playing", "src": "audio", "id": "audio", "input": {"volume": 3}},
        {"op": "createInvoke", "stateId": "player.playing", "src": "clock", "index": 0},
        {"op": "createTransition", "sourceId": "player.playing", "eventType": "xstate.done.actor.audio",
         "targetId": "player.paused"},
        {"op": "updateInvoke", "stateId": "player.playing", "invokeId": "audio", "input": None, "systemId": "sound"},
    ])
    invokes = document["states"]["playing"]["invoke"]
    assert invokes == [{"src": "clock"}, {"src": "audio", "id": "audio", "systemId": "sound", "onDone": "paused"}]
    document = apply([
        {"op": "createInvoke", "stateId": "player.playing", "src": "audio", "id": "audio"},
        {"op": "createInvoke", "stateId": "player.playing", "src": "clock"},
        {"op": "updateInvoke", "stateId": "player.playing", "invokeId": "audio", "index": 1, "id": None},
        {"op": "deleteInvoke", "stateId": "player.playing", "invokeId": "1.player.playing"},
    ])
    assert document["states"]["playing"]["invoke"] == {"src": "clock"}


def test_machine_and_state_data_operations() -> None:
    document = apply([
        {"op": "setContext", "context": {"volume": 5}},
        {"op": "setTags", "stateId": "player.playing", "tags": ["busy"]},
        {"op": "setMeta", "stateId": "player.paused", "meta": {"color": "grey"}},
        {"op": "setDescription", "stateId": "player", "description": "A media player"},
        {"op": "createState", "parentId": "player", "key": "done", "type": "final"},
        {"op": "setOutput", "stateId": "player.done", "output": {"ok": True}},
        {"op": "setContextSchema", "schema": {"type": "object"}},
        {"op": "setEventsSchema", "schema": {"PLAY": {"type": "object"}}},
        {"op": "setInputSchema", "schema": {"type": "object"}},
        {"op": "setOutputSchema", "schema": {"type": "object"}},
    ])
    assert document["context"] == {"volume": 5}
    assert document["states"]["playing"]["tags"] == ["busy"]
    assert document["states"]["paused"]["meta"] == {"color": "grey"}
    assert document["description"] == "A media player"
    assert document["states"]["done"]["output"] == {"ok": True}
    assert set(document["schemas"]) == {"context", "events", "input", "output"}
    cleared = apply([{"op": "setContext", "context": None}, {"op": "setTags", "stateId": "player.paused", "tags": []},
                     {"op": "setContextSchema", "schema": None}], document)
    assert "context" not in cleared and "tags" not in cleared["states"]["paused"]
    assert set(cleared["schemas"]) == {"events", "input", "output"}


def test_every_operation_has_a_test_above() -> None:
    tested = set()
    with open(__file__, encoding="utf-8") as handle:
        source = handle.read()
    for name in OPERATIONS:
        if f'"op": "{name}"' in source.split("def test_every_operation_has_a_test_above")[0]:
            tested.add(name)
    assert tested == set(OPERATIONS)


# --- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("patches", "expected"), [
    ([{"op": "create_transition"}], "use 'createTransition'"),
    ([{"op": "delete-state"}], "use 'deleteState'"),
    ([{"op": "CreateTransition"}], "did you mean 'createTransition'"),
    ([{"op": "createTransiton"}], "did you mean 'createTransition'"),
    ([{"op": 3}], "`op` must be a string"),
    ([{"sourceId": "player"}], "needs `op`"),
    (["createState"], "must be an object"),
    ({"op": "createState"}, "must be a list"),
    ([{"op": "createTransition", "sourceId": "player.playng", "eventType": "X"}], "did you mean 'player.playing'"),
    ([{"op": "createTransition", "sourceId": "player.playing", "eventType": "X", "targetId": "player.pause"}],
     "unknown state id 'player.pause' in `targetId`"),
    ([{"op": "createTransition", "sourceId": "player.playing", "eventType": "X", "target": "player.paused"}],
     "did you mean 'targetId'"),
    ([{"op": "createTransition", "sourceId": "player.playing"}], "needs `eventType`"),
    ([{"op": "createTransition", "sourceId": "player.playing", "eventType": 5}], "`eventType` of `createTransition` must be"),
    ([{"op": "createTransition", "sourceId": "player.playing", "eventType": "X", "priority": 4}], "past the end"),
    ([{"op": "createTransition", "sourceId": "player.playing", "eventType": "X", "guard": {"params": {}}}], "guard"),
    ([{"op": "createTransition", "sourceId": "player.playing", "eventType": "X", "actions": [7]}], "actions"),
    ([{"op": "createTransition", "sourceId": "player.playing", "eventType": "xstate.after.100.player.paused"}],
     "another state"),
    ([{"op": "deleteTransition", "transitionId": "player.paused:PLAY:3"}], "did you mean 'player.paused:PLAY:0'"),
    ([{"op": "updateTransition", "transitionId": "player.paused:PLAY:0", "eventType": None}], "must be a string"),
    ([{"op": "createState", "parentId": "player", "key": "paused"}], "already has a child 'paused'"),
    ([{"op": "createState", "parentId": "player", "key": "a.b"}], "invalid state key"),
    ([{"op": "createState", "parentId": "player", "key": "x", "type": "weird"}], "one of"),
    ([{"op": "createState", "parentId": "player", "key": "x", "index": -1}], ">= 0"),
    ([{"op": "renameState", "stateId": "player.paused", "newKey": "playing"}], "already has a child"),
    ([{"op": "moveState", "stateId": "player.playing", "parentId": "player.playing.fast"}], "its own descendant"),
    ([{"op": "moveState", "stateId": "player", "parentId": "player.paused"}], "root cannot be moved"),
    ([{"op": "deleteState", "stateId": "player"}], "root cannot be deleted"),
    ([{"op": "setStateId", "stateId": "player.paused", "id": "player.playing"}], "invalid state id"),
    ([{"op": "setStateId", "stateId": "player.paused", "id": "player"}], "already the id of another state"),
    ([{"op": "setStateId", "stateId": "player", "id": "x"}], "use renameState on the root"),
    ([{"op": "setInitialState", "stateId": "player", "initialStateId": "player.playing.fast"}], "not a child"),
    ([{"op": "setStateType", "stateId": "player.paused", "type": "atomic", "history": "deep"}], "only to type 'history'"),
    ([{"op": "updateInvoke", "stateId": "player.paused", "invokeId": "nope"}], "has no invoke 'nope'"),
    ([{"op": "setContext"}], "needs `context`"),
])
def test_errors_are_invalid_input_with_a_clear_message(patches: Any, expected: str) -> None:
    assert expected in error_of(patches)


def test_too_many_patches() -> None:
    assert "at most 2000 patches" in error_of([{"op": "setContext", "context": None}] * 2001)


def test_error_names_the_failing_patch_index() -> None:
    message = error_of([{"op": "createState", "parentId": "player", "key": "x"},
                        {"op": "deleteState", "stateId": "player.y"}])
    assert message.startswith("patches[1] (deleteState)")


def test_ids_are_resolved_against_the_machine_as_patched_so_far() -> None:
    document = apply([{"op": "renameState", "stateId": "player.playing", "newKey": "active"},
                      {"op": "setTags", "stateId": "player.active", "tags": ["on"]}])
    assert document["states"]["active"]["tags"] == ["on"]
    assert "player.playing" in error_of([{"op": "renameState", "stateId": "player.playing", "newKey": "active"},
                                         {"op": "setTags", "stateId": "player.playing", "tags": ["on"]}])


def test_missing_arguments() -> None:
    with pytest.raises(ToolError, match="`patches` is required"):
        tools.call("apply_machine_patches", {"machine": PLAYER})
    with pytest.raises(ToolError, match="`machine`"):
        tools.call("apply_machine_patches", {"patches": []})
    with pytest.raises(ToolError, match="did you mean 'patches'"):
        tools.call("apply_machine_patches", {"machine": PLAYER, "patch": []})


# --- the JSON Schema --------------------------------------------------------------------------


def test_schema_file_is_the_catalog() -> None:
    text = resources.files("statekit.schemas").joinpath("patches.schema.json").read_text(encoding="utf-8")
    assert json.loads(text) == patches_json_schema()


def test_schema_accepts_generated_patches_and_rejects_bad_ones() -> None:
    import jsonschema  # a dependency of the mcp SDK, so of every install
    schema = patches_json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    before = parse_machine(PLAYER)
    after = parse_machine({**PLAYER, "states": {**PLAYER["states"], "stopped": {"type": "final"}}})
    jsonschema.validate(generate_patches(diff_models(before, after)), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate([{"op": "create_transition"}], schema)


# --- round trips: applying diff(A, B)'s patches to A gives B ------------------------------------


def assert_round_trip(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, Any]]:
    before, after = parse_machine(a), parse_machine(b)
    diff = diff_models(before, after)
    patches = generate_patches(diff)
    result = apply_patches(before, patches)
    assert comparable_config(result) == comparable_config(after), json.dumps(patches)
    # The diff agrees: nothing is left to change.
    assert not diff_models(result, after).has_changes
    if not diff.has_changes:
        assert patches == []
    return patches


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(machine_configs(), machine_configs())
def test_property_diff_patches_rebuild_the_after_machine(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert_round_trip(a, b)


def _rename_everywhere(config: dict[str, Any], path: tuple[str, ...], new_key: str) -> dict[str, Any]:
    """`config` with the state at `path` renamed, its `#id` and sibling references rewritten."""
    text = json.dumps(config)
    old_id = ".".join(("m", *path))
    new_id = ".".join(("m", *path[:-1], new_key))
    text = text.replace(f'"#{old_id}"', f'"#{new_id}"').replace(f'"#{old_id}.', f'"#{new_id}.')
    renamed = json.loads(text)
    parent = renamed
    for key in path[:-1]:
        parent = parent["states"][key]
    parent["states"] = {(new_key if k == path[-1] else k): v for k, v in parent["states"].items()}
    if parent.get("initial") == path[-1]:
        parent["initial"] = new_key
    for sibling in parent["states"].values():
        if sibling.get("type") == "history" and sibling.get("target") == path[-1]:
            sibling["target"] = new_key
        groups = [*(sibling.get("on") or {}).values(), *(sibling.get("after") or {}).values(),
                  sibling.get("always") or [], sibling.get("onDone") or []]
        for invoke in sibling.get("invoke") or []:
            groups += [invoke.get("onDone") or [], invoke.get("onError") or []]
        for group in groups:
            for item in group if isinstance(group, list) else [group]:
                if isinstance(item, dict) and item.get("target") == path[-1]:
                    item["target"] = new_key
    return renamed


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(machine_configs(), st.data())
def test_property_renames_round_trip_as_renames(a: dict[str, Any], data: st.DataObject) -> None:
    model = parse_machine(a)
    paths = [node.path for node in model.root.walk() if node.parent_id is not None]
    path = data.draw(st.sampled_from(paths))
    b = _rename_everywhere(a, path, "renamed")
    patches = assert_round_trip(a, b)
    assert any(p["op"] == "renameState" for p in patches)
    assert not any(p["op"] in ("createState", "deleteState") for p in patches)


def test_states_are_matched_by_id_before_similarity() -> None:
    # Swapping two states' contents is a change of their contents (ids win), not two renames.
    a = {"id": "m", "initial": "x", "states": {"x": {"on": {"A": "y"}}, "y": {"on": {"B": "x"}, "entry": ["e"]}}}
    b = {"id": "m", "initial": "y", "states": {"y": {"on": {"A": "x"}}, "x": {"on": {"B": "y"}, "entry": ["e"]}}}
    patches = assert_round_trip(a, b)
    assert not any(p["op"] == "renameState" for p in patches)


def test_generated_patches_keep_action_order_priority_and_null_resets() -> None:
    a = {"id": "m", "initial": "s", "context": {"n": 1}, "states": {"s": {
        "entry": ["a", "b"], "meta": {"x": 1}, "description": "d",
        "on": {"GO": [{"target": "t", "guard": "g1", "actions": [{"type": "p", "params": {"v": 1}}]},
                      {"target": "t", "guard": "g2"}]}}, "t": {}}}
    b = {"id": "m", "initial": "s", "states": {"s": {
        "entry": ["b", "a"],
        "on": {"GO": [{"target": "t", "guard": "g2"},
                      {"target": "t", "guard": "g1", "actions": [{"type": "p"}]}]}}, "t": {}}}
    patches = assert_round_trip(a, b)
    ops = {json.dumps(p, sort_keys=True) for p in patches}
    assert json.dumps({"op": "setEntryActions", "stateId": "m.s", "actions": ["b", "a"]}, sort_keys=True) in ops
    assert json.dumps({"op": "setMeta", "stateId": "m.s", "meta": None}, sort_keys=True) in ops
    assert json.dumps({"op": "setDescription", "stateId": "m.s", "description": None}, sort_keys=True) in ops
    assert json.dumps({"op": "setContext", "context": None}, sort_keys=True) in ops
    updates = [p for p in patches if p["op"] == "updateTransition"]
    assert any(p.get("priority") == 0 for p in updates)
    assert any(p.get("actions") == ["p"] for p in updates)  # params cleared: {"type": "p"} is written "p"


def test_round_trip_of_a_move_into_a_renamed_parent_with_explicit_ids() -> None:
    a = {"id": "m", "initial": "b", "states": {
        "b": {"id": "id_b", "initial": "d", "states": {"d": {"id": "id_d", "on": {"GO": "#m.c"}}, "e": {}}},
        "c": {"on": {"BACK": "#id_d"}}}}
    b = {"id": "m", "initial": "a", "states": {
        "a": {"id": "id_b", "initial": "d", "states": {"d": {"entry": ["new"]}, "e": {}}},
        "c": {"on": {"BACK": "#id_d"}},
        "d": {"id": "id_d", "on": {"GO": "c"}}}}
    assert_round_trip(a, b)


def test_round_trip_of_moves_and_retargets() -> None:
    a = {"id": "m", "initial": "a", "states": {
        "a": {"initial": "a1", "states": {"a1": {"on": {"N": "a2"}}, "a2": {"on": {"BACK": "#m.b"}}}},
        "b": {"on": {"GO": "a"}}}}
    b = {"id": "m", "initial": "a", "states": {
        "a": {"initial": "a1", "states": {"a1": {"on": {"N": "#m.b.a2"}}}},
        "b": {"initial": "a2", "states": {"a2": {"on": {"BACK": "#m.a"}}}, "on": {"GO": "a"}}}}
    patches = assert_round_trip(a, b)
    assert {"op": "moveState", "stateId": "m.a.a2", "parentId": "m.b"} in patches


def test_documented_normalisations() -> None:
    # The applier chooses the written form of targets; both forms mean the same state.
    sibling = parse_machine({"id": "m", "initial": "a", "states": {"a": {"on": {"GO": "b"}}, "b": {}}})
    absolute = parse_machine({"id": "m", "initial": "a", "states": {"a": {"on": {"GO": "#m.b"}}, "b": {}}})
    assert comparable_config(sibling) == comparable_config(absolute)
    assert machine_to_config(sibling) != machine_to_config(absolute)
    assert not diff_models(sibling, absolute).has_changes


def test_every_operation_is_documented() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "patches.md").read_text(encoding="utf-8")
    for operation in OPERATIONS.values():
        assert f"| `{operation.name}` |" in doc
        for name in operation.fields:
            assert f"`{name}`" in doc, (operation.name, name)


# --- robustness: any patch sequence either applies or is refused with invalid_input -------------

_FIELD_VALUES: dict[str, list[Any]] = {
    "key": ["a", "new", "b", "", "x.y"],
    "newKey": ["a", "renamed", "b", "#x"],
    "eventType": ["GO", "", "xstate.after.100.m.a", "xstate.done.state.m", "xstate.done.actor.job0", "task.*"],
    "type": ["atomic", "compound", "parallel", "final", "history", None],
    "history": ["shallow", "deep"],
    "index": [0, 1, 5],
    "priority": [0, 1, 3],
    "guard": [None, "isReady", {"type": "xstate.not", "guard": "isLate"}],
    "actions": [None, [], ["log", {"type": "track", "params": {"k": 2}}]],
    "reenter": [None, True, False],
    "description": [None, "why"],
    "meta": [None, {"m": 1}],
    "delay": [100, "slow"],
    "src": ["fetcher", "timer"],
    "id": [None, "job0", "fresh"],
    "input": [None, {"n": 1}],
    "systemId": [None, "sys"],
    "context": [None, {"count": 3}],
    "tags": [None, [], ["busy"]],
    "output": [None, {"done": True}],
    "schema": [None, {"type": "object"}],
}


@st.composite
def patch_sequences(draw: st.DrawFn) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    config = draw(machine_configs())
    model = parse_machine(config)
    state_ids = [*model.nodes, "m.nope"]
    transition_ids = [*(t.id for t in model.transitions()), "m.a:GO:9"]
    invoke_ids = [invoke.id for node in model.root.walk() for invoke in node.invoke] + ["job0"]
    patches = []
    for _ in range(draw(st.integers(1, 6))):
        operation = OPERATIONS[draw(st.sampled_from(sorted(OPERATIONS)))]
        patch: dict[str, Any] = {"op": operation.name}
        for name in operation.fields:
            if name not in operation.required and draw(st.booleans()):
                continue
            if name in ("stateId", "parentId", "sourceId", "initialStateId"):
                patch[name] = draw(st.sampled_from(state_ids))
            elif name in ("targetId", "historyTargetId"):
                patch[name] = draw(st.one_of(st.none(), st.sampled_from(state_ids),
                                             st.lists(st.sampled_from(state_ids), min_size=1, max_size=2)))
            elif name == "transitionId":
                patch[name] = draw(st.sampled_from(transition_ids))
            elif name == "invokeId":
                patch[name] = draw(st.sampled_from(invoke_ids))
            else:
                patch[name] = draw(st.sampled_from(_FIELD_VALUES[name]))
        patches.append(patch)
    return config, patches


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(patch_sequences())
def test_property_patches_apply_or_are_refused_cleanly(case: tuple[dict[str, Any], list[dict[str, Any]]]) -> None:
    config, patches = case
    try:
        result = tools.call("apply_machine_patches", {"machine": config, "patches": patches})
    except ToolError as error:
        assert error.code == "invalid_input", error.message
        assert error.message.startswith("patches[")
        return
    parse_machine(result["document"])  # the result is a readable machine


def test_the_mcp_listing_names_every_operation_with_its_fields_and_the_full_schema_is_checked() -> None:
    from statekit.analysis.patch_catalog import OPERATIONS
    from statekit.tools import get
    from statekit.tools.references import PATCHES_URI, document

    spec = get("apply_machine_patches")
    listed = spec.input_schema["properties"]["patches"]["description"]
    for operation in OPERATIONS.values():  # the signature: the name, its required and optional fields
        fields = [*operation.required, *(f"{name}?" for name in operation.optional)]
        assert f"{operation.name}({','.join(fields)})" in listed
    assert PATCHES_URI in listed and json.loads(document(PATCHES_URI)) == patches_json_schema()
    # Stage 2 checks the complete schema, as before the listing was made compact.
    assert spec.argument_schemas["patches"] == patches_json_schema()
    assert get("review_machine_implementation").argument_schemas["patches"] == patches_json_schema()
    with pytest.raises(ToolError) as refused:
        tools.call("apply_machine_patches", {"machine": PLAYER, "patches": [
            {"op": "createTransition", "sourceId": "player.playing", "eventType": "X", "targetId": []}]})
    assert refused.value.code == "invalid_input" and refused.value.details["path"].startswith("/patches/0")
