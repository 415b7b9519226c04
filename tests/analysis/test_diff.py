"""diff_machines: structural comparison, rename/move/retarget recognition, semantic changes."""

from __future__ import annotations

import argparse
import copy
import json
from pathlib import Path
from typing import Any

import pytest

from statekit import tools
from statekit.analysis.patches import apply_patches, comparable_config
from statekit.cli.change import add_commands as add_change_commands
from statekit.errors import ToolError
from statekit.model import parse_machine

BEFORE: dict[str, Any] = {
    "id": "player",
    "initial": "paused",
    "states": {"paused": {"on": {"PLAY": "playing"}}, "playing": {}},
}
AFTER: dict[str, Any] = {
    "id": "player",
    "initial": "paused",
    "states": {
        "paused": {"on": {"PLAY": "playing"}},
        "playing": {"on": {"STOP": "stopped"}},
        "stopped": {"type": "final"},
    },
}


def diff(before: Any, after: Any, **options: Any) -> dict[str, Any]:
    return tools.call("diff_machines", {"before": before, "after": after, **options})


def counts(result: dict[str, Any]) -> dict[str, int]:
    return {f"{part}.{kind}": len(result["diff"][part][kind])
            for part in ("nodes", "edges") for kind in ("added", "removed", "updated")}


def only_update(result: dict[str, Any], part: str) -> dict[str, Any]:
    updates = result["diff"][part]["updated"]
    assert len(updates) == 1, updates
    update: dict[str, Any] = updates[0]
    return update


def test_spec_example() -> None:
    result = diff(BEFORE, AFTER, includePatches=True)
    assert result["hasChanges"] is True
    assert counts(result) == {"nodes.added": 1, "nodes.removed": 0, "nodes.updated": 0,
                              "edges.added": 1, "edges.removed": 0, "edges.updated": 0}
    added_node = result["diff"]["nodes"]["added"][0]
    assert added_node["id"] == "player.stopped" and added_node["type"] == "final"
    edge = result["diff"]["edges"]["added"][0]
    assert (edge["source"], edge["event"], edge["target"]) == ("player.playing", "STOP", ["player.stopped"])
    assert result["semanticChanges"]["version"] == 1
    assert [c["type"] for c in result["semanticChanges"]["changes"]] == ["stateAdded", "transitionAdded"]
    assert "Added final state `player.stopped`" in result["summary"]
    assert result["patches"] == [
        {"op": "createState", "parentId": "player", "key": "stopped", "type": "final"},
        {"op": "createTransition", "sourceId": "player.playing", "eventType": "STOP", "targetId": "player.stopped"},
    ]
    json.dumps(result)  # the whole result is JSON


def test_patches_only_on_request() -> None:
    assert "patches" not in diff(BEFORE, AFTER)


def test_written_form_is_not_a_change() -> None:
    expanded = {
        "initial": "paused",
        "states": {
            "playing": {},
            "paused": {"on": {"PLAY": [{"target": "#player.playing", "actions": []}]}},
        },
        "id": "player",
    }
    yaml_text = "id: player\ninitial: paused\nstates:\n  paused:\n    on:\n      PLAY: playing\n  playing: {}\n"
    for other in (expanded, yaml_text, json.dumps(BEFORE)):
        result = diff(BEFORE, other, includePatches=True)
        assert result["hasChanges"] is False, result["summary"]
        assert result["patches"] == []
        assert result["summary"] == "No behavioural or structural changes."


def test_renamed_state_is_one_update_and_its_incoming_transitions_do_not_change() -> None:
    after = {"id": "player", "initial": "paused",
             "states": {"paused": {"on": {"PLAY": "active"}}, "active": {"entry": ["start"]}}}
    before = copy.deepcopy(after)
    before["states"] = {"paused": {"on": {"PLAY": "playing"}}, "playing": {"entry": ["start"]}}
    result = diff(before, after)
    update = only_update(result, "nodes")
    assert (update["beforeId"], update["id"], update["fields"]) == ("player.playing", "player.active", ["key"])
    assert counts(result)["edges.updated"] == 0 and counts(result)["nodes.added"] == 0


def test_renamed_parent_carries_its_children() -> None:
    before = {"id": "m", "initial": "a", "states": {"a": {"initial": "x", "states": {"x": {"on": {"GO": "y"}}, "y": {}}}}}
    after = {"id": "m", "initial": "b", "states": {"b": {"initial": "x", "states": {"x": {"on": {"GO": "y"}}, "y": {}}}}}
    result = diff(before, after)
    update = only_update(result, "nodes")
    assert update["fields"] == ["key"]
    changes = result["semanticChanges"]["changes"]
    assert [c["type"] for c in changes] == ["stateUpdated"]  # the root's initial follows the rename


def test_moved_state() -> None:
    before = {"id": "m", "initial": "a", "states": {
        "a": {"initial": "a1", "states": {"a1": {"on": {"N": "a2"}}, "a2": {"on": {"BACK": "a1"}}}}, "b": {}}}
    after = {"id": "m", "initial": "a", "states": {
        "a": {"initial": "a1", "states": {"a1": {"on": {"N": "#m.b.a2"}}}},
        "b": {"initial": "a2", "states": {"a2": {"on": {"BACK": "#m.a.a1"}}}}}}
    result = diff(before, after)
    moved = [u for u in result["diff"]["nodes"]["updated"] if u["beforeId"] == "m.a.a2"]
    assert moved and moved[0]["id"] == "m.b.a2" and moved[0]["fields"] == ["parent"]
    assert moved[0]["old"]["parent"] == "m.a" and moved[0]["new"]["parent"] == "m.b"
    assert counts(result)["nodes.removed"] == 0 and counts(result)["edges.added"] == 0


def test_retargeted_transition_stays_one_change() -> None:
    after = copy.deepcopy(AFTER)
    after["states"]["paused"]["on"]["PLAY"] = "stopped"
    result = diff(AFTER, after)
    update = only_update(result, "edges")
    assert update["fields"] == ["target"]
    assert update["old"]["target"] == ["player.playing"] and update["new"]["target"] == ["player.stopped"]
    assert counts(result)["edges.added"] == counts(result)["edges.removed"] == 0


def test_source_changed_transition_stays_one_change() -> None:
    after = copy.deepcopy(AFTER)
    after["states"]["paused"]["on"] = {}
    after["states"]["stopped"] = {"on": {"PLAY": "playing"}}
    result = diff(AFTER, after)
    edge = only_update(result, "edges")
    assert edge["fields"] == ["source"]
    assert (edge["old"]["source"], edge["new"]["source"]) == ("player.paused", "player.stopped")


@pytest.mark.parametrize(("change", "fields"), [
    ({"PLAY": {"target": "playing", "guard": "canPlay"}}, ["guard"]),
    ({"START": "playing"}, ["event", "label"]),
    ({"PLAY": {"target": "playing", "actions": ["a"]}}, ["actions"]),
    ({"PLAY": {"target": "playing", "reenter": True}}, ["reenter"]),
])
def test_each_transition_change_names_its_fields(change: dict[str, Any], fields: list[str]) -> None:
    after = copy.deepcopy(AFTER)
    after["states"]["paused"]["on"] = change
    assert only_update(diff(AFTER, after), "edges")["fields"] == fields


def test_action_order_is_semantic() -> None:
    before = {"id": "m", "initial": "a", "states": {"a": {"entry": ["x", "y"], "on": {"GO": {"target": "a", "actions": ["p", "q"]}}}}}
    after = {"id": "m", "initial": "a", "states": {"a": {"entry": ["y", "x"], "on": {"GO": {"target": "a", "actions": ["q", "p"]}}}}}
    result = diff(before, after)
    assert only_update(result, "nodes")["fields"] == ["entry"]
    assert only_update(result, "edges")["fields"] == ["actions"]


def test_guarded_transition_priority_is_semantic() -> None:
    before = {"id": "m", "initial": "a", "states": {"a": {"on": {"GO": [
        {"target": "b", "guard": "first"}, {"target": "c", "guard": "second"}]}}, "b": {}, "c": {}}}
    after = copy.deepcopy(before)
    after["states"]["a"]["on"]["GO"].reverse()
    result = diff(before, after, includePatches=True)
    assert [u["fields"] for u in result["diff"]["edges"]["updated"]] == [["priority"], ["priority"]]
    assert comparable_config(apply_patches(parse_machine(before), result["patches"])) == comparable_config(parse_machine(after))


def test_removing_an_earlier_transition_is_not_a_priority_change() -> None:
    before = {"id": "m", "initial": "a", "states": {"a": {"on": {"GO": [
        {"target": "b", "guard": "first"}, {"target": "c", "guard": "second"}]}}, "b": {}, "c": {}}}
    after = copy.deepcopy(before)
    del after["states"]["a"]["on"]["GO"][0]
    result = diff(before, after)
    assert counts(result) == {"nodes.added": 0, "nodes.removed": 0, "nodes.updated": 0,
                              "edges.added": 0, "edges.removed": 1, "edges.updated": 0}


def test_non_structural_changes_count_in_has_changes_only() -> None:
    after = copy.deepcopy(BEFORE)
    after["context"] = {"volume": 3}
    after["description"] = "A player"
    after["states"]["paused"]["meta"] = {"color": "grey"}
    after["states"]["paused"]["on"]["PLAY"] = {"target": "playing", "description": "start playing"}
    result = diff(BEFORE, after, includePatches=True)
    assert result["hasChanges"] is True
    assert all(n == 0 for n in counts(result).values())
    changes = result["semanticChanges"]["changes"]
    assert {c["type"] for c in changes} == {"machineUpdated", "stateUpdated", "transitionUpdated"}
    assert changes[0]["fields"] == ["context"]
    assert "4 non-structural change(s)" in result["summary"]  # context, root description, meta, description
    rebuilt = apply_patches(parse_machine(BEFORE), result["patches"])
    assert comparable_config(rebuilt) == comparable_config(parse_machine(after))


def test_schema_changes_are_reported_per_schema() -> None:
    after = {**BEFORE, "schemas": {"context": {"type": "object"}, "events": {"PLAY": {}}}}
    result = diff(BEFORE, after, includePatches=True)
    assert result["semanticChanges"]["changes"][0]["fields"] == ["schemas.context", "schemas.events"]
    assert {p["op"] for p in result["patches"]} == {"setContextSchema", "setEventsSchema"}


def test_removed_state_and_its_transitions() -> None:
    result = diff(AFTER, BEFORE, includePatches=True)
    assert counts(result)["nodes.removed"] == 1 and counts(result)["edges.removed"] == 1
    removed_edge = result["diff"]["edges"]["removed"][0]
    assert removed_edge["source"] == "player.playing" and removed_edge["target"] == ["player.stopped"]
    assert result["patches"] == [{"op": "deleteTransition", "transitionId": "player.playing:STOP:0"},
                                 {"op": "deleteState", "stateId": "player.stopped"}]


@pytest.mark.parametrize(("arguments", "message"), [
    ({"after": BEFORE}, "`before` is required"),
    ({"before": BEFORE}, "`after` is required"),
    ({"before": "{not json", "after": BEFORE}, "`before`: invalid JSON"),
    ({"before": BEFORE, "after": {"states": 3}}, "`after`: invalid machine config"),
    ({"before": BEFORE, "after": BEFORE, "includePatches": "yes"}, "`includePatches` must be true or false"),
    ({"before": BEFORE, "after": BEFORE, "include_patches": True}, "did you mean 'includePatches'"),
])
def test_errors(arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(ToolError) as caught:
        tools.call("diff_machines", arguments)
    assert caught.value.code == "invalid_input"
    assert message in caught.value.message


def _cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="statekit")
    add_change_commands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code: int = args.handler(args)
    return code


def test_cli_diff(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before, after = tmp_path / "before.json", tmp_path / "after.yaml"
    before.write_text(json.dumps(BEFORE), encoding="utf-8")
    after.write_text(json.dumps(AFTER), encoding="utf-8")
    assert _cli(["diff", str(before), str(after), "--patches"]) == 0
    out = capsys.readouterr().out
    assert "Added final state `player.stopped`" in out and '"op": "createState"' in out
    assert _cli(["diff", str(before), str(after), "--exit-code"]) == 1
    capsys.readouterr()
    assert _cli(["diff", str(before), str(before), "--json", "--exit-code"]) == 0
    assert json.loads(capsys.readouterr().out)["hasChanges"] is False


def test_region_order_is_semantic_but_compound_child_order_is_not() -> None:
    regions = {"x": {}, "y": {}}
    before = {"id": "m", "type": "parallel", "states": regions}
    after = {"id": "m", "type": "parallel", "states": {"y": {}, "x": {}}}
    result = diff(before, after, includePatches=True)
    assert only_update(result, "nodes")["fields"] == ["regionOrder"]
    assert result["patches"] == [{"op": "moveState", "stateId": "m.y", "parentId": "m", "index": 0}]
    compound_before = {"id": "m", "initial": "x", "states": regions}
    compound_after = {"id": "m", "initial": "x", "states": {"y": {}, "x": {}}}
    assert diff(compound_before, compound_after, includePatches=True)["patches"] == []
