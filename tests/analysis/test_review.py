"""review_machine_implementation: missing / extra / divergent changes and the Markdown artifact."""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from machine_strategies import machine_configs
from statekit import tools
from statekit.analysis.review_mermaid import escape_label, render_state_diagram
from statekit.cli.change import add_commands as add_change_commands
from statekit.errors import ToolError
from statekit.model import parse_machine

ORIGINAL: dict[str, Any] = {
    "id": "payment",
    "initial": "processing",
    "states": {
        "processing": {"on": {"DONE": "completed", "FAIL": "failed"}},
        "completed": {"type": "final"},
        "failed": {},
    },
}
# Add verifyingFraud between processing and completed (the spec's review example).
PATCHES: list[dict[str, Any]] = [
    {"op": "createState", "parentId": "payment", "key": "verifyingFraud"},
    {"op": "updateTransition", "transitionId": "payment.processing:DONE:0", "targetId": "payment.verifyingFraud"},
    {"op": "createTransition", "sourceId": "payment.verifyingFraud", "eventType": "APPROVED",
     "targetId": "payment.completed"},
    {"op": "createTransition", "sourceId": "payment.verifyingFraud", "eventType": "REJECTED",
     "targetId": "payment.failed"},
]
EDITED: dict[str, Any] = {
    "id": "payment",
    "initial": "processing",
    "states": {
        "processing": {"on": {"DONE": "verifyingFraud", "FAIL": "failed"}},
        "verifyingFraud": {"on": {"APPROVED": "completed", "REJECTED": "failed"}},
        "completed": {"type": "final"},
        "failed": {},
    },
}


def review(edited: Any, patches: Any = PATCHES, original: Any = ORIGINAL) -> dict[str, Any]:
    return tools.call("review_machine_implementation", {"original": original, "edited": edited, "patches": patches})


def test_a_faithful_edit_matches() -> None:
    result = review(EDITED)
    assert result["verdict"] == "matches"
    assert (result["missing"], result["extra"], result["divergent"]) == ([], [], [])
    assert result["validation"]["ok"] is True
    types = [c["type"] for c in result["actualChanges"]["changes"]]
    assert types == ["stateAdded", "transitionUpdated", "transitionAdded", "transitionAdded"]
    assert result["actualChanges"] == result["proposedChanges"]
    artifact = result["artifact"]
    assert artifact["name"] == "behavior-review.md" and artifact["mediaType"] == "text/markdown"
    content = artifact["content"]
    assert content.startswith("# Behavior review")
    assert "matches the proposed patches" in content
    assert content.count("```mermaid\nstateDiagram-v2") == 2
    assert "Added state `payment.verifyingFraud`" not in content  # its type is named
    assert "Added atomic state `payment.verifyingFraud`" in content
    assert '"op": "createState"' in content  # the proposal is in the artifact


def test_a_missing_change() -> None:
    edited = copy.deepcopy(EDITED)
    del edited["states"]["verifyingFraud"]["on"]["REJECTED"]
    result = review(edited)
    assert result["verdict"] == "differs"
    assert [m["type"] for m in result["missing"]] == ["transitionAdded"]
    assert "REJECTED" in result["missing"][0]["description"]
    assert result["extra"] == [] and result["divergent"] == []
    assert "**Missing** (proposed, not in the edit): 1" in result["artifact"]["content"]


def test_an_extra_change() -> None:
    edited = copy.deepcopy(EDITED)
    edited["states"]["failed"]["on"] = {"RETRY": "processing"}
    result = review(edited)
    assert result["verdict"] == "differs"
    assert [e["type"] for e in result["extra"]] == ["transitionAdded"]
    assert "RETRY" in result["extra"][0]["description"]
    assert result["missing"] == [] and result["divergent"] == []


def test_a_divergent_change() -> None:
    edited = copy.deepcopy(EDITED)
    edited["states"]["verifyingFraud"]["on"]["APPROVED"] = "failed"
    result = review(edited)
    assert result["verdict"] == "differs"
    assert len(result["divergent"]) == 1
    divergent = result["divergent"][0]
    assert divergent["fields"] == ["target"]
    assert divergent["expected"] == {"target": ["payment.completed"]}
    assert divergent["actual"] == {"target": ["payment.failed"]}
    assert result["missing"] == [] and result["extra"] == []
    assert 'Expected `{"target": ["payment.completed"]}`' in result["artifact"]["content"]


def test_a_divergent_field_update() -> None:
    edited = copy.deepcopy(EDITED)
    edited["states"]["processing"]["on"]["DONE"] = "failed"
    result = review(edited)
    assert [(d["type"], d["field"]) for d in result["divergent"]] == [("transitionUpdated", "target")]
    assert [m["type"] for m in result["missing"]] == []


def test_an_invalid_edit() -> None:
    edited = copy.deepcopy(EDITED)
    edited["states"]["verifyingFraud"]["on"]["APPROVED"] = "complete"  # no such state
    result = review(edited)
    assert result["verdict"] == "invalid"
    assert result["validation"]["ok"] is False
    assert "The edited machine is not valid" in result["artifact"]["content"]
    assert "## Validation issues" in result["artifact"]["content"]


def test_an_edit_without_a_proposal_is_all_extra() -> None:
    result = review(EDITED, patches=[])
    assert result["verdict"] == "differs"
    assert len(result["extra"]) == 4 and result["proposedChanges"]["changes"] == []


def test_review_writes_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    review(EDITED)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize(("arguments", "message"), [
    ({"edited": EDITED, "patches": []}, "`original` is required"),
    ({"original": ORIGINAL, "patches": []}, "`edited` is required"),
    ({"original": ORIGINAL, "edited": EDITED}, "`patches` is required"),
    ({"original": ORIGINAL, "edited": EDITED, "patches": [{"op": "create_state"}]}, "use 'createState'"),
    ({"original": ORIGINAL, "edited": "states: [", "patches": []}, "`edited`"),
])
def test_errors(arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(ToolError) as caught:
        tools.call("review_machine_implementation", arguments)
    assert caught.value.code == "invalid_input"
    assert message in caught.value.message


# --- the Mermaid renderer ---------------------------------------------------------------------

MERMAID_NAME = re.compile(r"^[A-Za-z0-9_]+$")


def _declared_names(diagram: str) -> set[str]:
    names = set(re.findall(r" as (\S+)$", diagram, re.MULTILINE))
    names |= set(re.findall(r"^\s*(\S+) --> ", diagram, re.MULTILINE)) - {"[*]"}
    return names


def test_mermaid_identifiers_are_plain_even_for_hyphenated_ids() -> None:
    machine = parse_machine({
        "id": "check-out", "initial": "cart-open", "states": {
            "cart-open": {"on": {"PAY:NOW": {"target": "paying", "guard": "has-items"}}},
            "paying": {"type": "parallel", "states": {"a-1": {}, "a_1": {}}},
            "pay.ing": {},
            'say "hi"; #1': {"type": "final"},
        }})
    diagram = render_state_diagram(machine)
    assert diagram.startswith("stateDiagram-v2\n")
    assert all(MERMAID_NAME.match(name) for name in _declared_names(diagram)), diagram
    assert len({n for n in _declared_names(diagram)}) >= 5  # a-1 and a_1 stay distinct
    assert 'state "say #quot;hi#quot;#59; #35;1" as' in diagram
    assert ": PAY#58;NOW [has-items]" in diagram
    assert "--\n" in diagram  # parallel regions are separated


def test_escape_label() -> None:
    assert escape_label('a "b": c; {d} <e> #f') == "a #quot;b#quot;#58; c#59; #123;d#125; #lt;e#gt; #35;f"


def test_highlights_mark_added_and_removed_states() -> None:
    content = review(EDITED)["artifact"]["content"]
    after = content.split("## After")[1]
    assert "classDef added" in after and "class s_payment_verifyingFraud added" in after


def _cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="statekit")
    add_change_commands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code: int = args.handler(args)
    return code


def test_cli_patch_and_review(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    original, edited, patches = tmp_path / "original.json", tmp_path / "edited.json", tmp_path / "patches.json"
    original.write_text(json.dumps(ORIGINAL), encoding="utf-8")
    edited.write_text(json.dumps(EDITED), encoding="utf-8")
    patches.write_text(json.dumps(PATCHES), encoding="utf-8")
    assert _cli(["patch", str(original), str(patches)]) == 0
    captured = capsys.readouterr()
    assert parse_machine(json.loads(captured.out)).nodes.keys() == parse_machine(EDITED).nodes.keys()
    assert "Added atomic state `payment.verifyingFraud`" in captured.err
    assert _cli(["patch", str(original), str(patches), "--to", "xstate-yaml"]) == 0
    assert "verifyingFraud:" in capsys.readouterr().out
    assert _cli(["review", str(original), str(edited), str(patches)]) == 0
    assert capsys.readouterr().out.startswith("# Behavior review")
    assert _cli(["review", str(original), str(original), str(patches), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["verdict"] == "differs"


def test_results_satisfy_the_declared_schemas() -> None:
    import jsonschema  # a dependency of the mcp SDK, so of every install
    calls = {
        "diff_machines": {"before": ORIGINAL, "after": EDITED, "includePatches": True},
        "apply_machine_patches": {"machine": ORIGINAL, "patches": PATCHES, "to": "xstate-yaml"},
        "review_machine_implementation": {"original": ORIGINAL, "edited": EDITED, "patches": PATCHES},
    }
    for name, arguments in calls.items():
        spec = tools.get(name)
        jsonschema.validate(arguments, spec.input_schema)
        for argument, schema in spec.argument_schemas.items():
            if argument in arguments:
                jsonschema.validate(arguments[argument], schema)
        jsonschema.validate(tools.call(name, arguments), spec.output_schema)
    # The complete patch schema, checked with the listed one, lists each operation's fields (so it
    # refuses a snake_case op), and the refusal still names the camelCase operation.
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate([{"op": "create_state"}], tools.get("apply_machine_patches").argument_schemas["patches"])
    with pytest.raises(ToolError, match="use 'createState'"):
        tools.call("apply_machine_patches", {"machine": ORIGINAL, "patches": [{"op": "create_state"}]})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(machine_configs(), machine_configs())
def test_property_an_edit_made_by_the_diffs_patches_matches_them(a: dict[str, Any], b: dict[str, Any]) -> None:
    patches = tools.call("diff_machines", {"before": a, "after": b, "includePatches": True})["patches"]
    result = review(b, patches=patches, original=a)
    assert (result["missing"], result["extra"], result["divergent"]) == ([], [], [])
    assert result["verdict"] == ("matches" if result["validation"]["ok"] else "invalid")
    if patches:
        assert review(a, patches=patches, original=a)["verdict"] in ("differs", "invalid")


def test_a_differing_review_shows_the_proposal_too() -> None:
    edited = copy.deepcopy(EDITED)
    del edited["states"]["verifyingFraud"]["on"]["REJECTED"]
    content = review(edited)["artifact"]["content"]
    proposal = content.split("## What the patches proposed")[1].split("##")[0]
    assert "REJECTED" in proposal
    assert "## What the patches proposed" not in review(EDITED)["artifact"]["content"]


def test_patches_keep_keys_they_do_not_name() -> None:
    machine = {"id": "m", "initial": "a", "states": {
        "a": {"route": "/a", "on": {"GO": {"target": "b", "input": {"x": 1}}}}, "b": {}}}
    document = tools.call("apply_machine_patches", {"machine": machine, "patches": [
        {"op": "updateTransition", "transitionId": "m.a:GO:0", "guard": "ok"},
        {"op": "setTags", "stateId": "m.a", "tags": ["t"]},
    ]})["document"]
    assert document["states"]["a"]["route"] == "/a"
    assert document["states"]["a"]["on"]["GO"] == {"target": "b", "guard": "ok", "input": {"x": 1}}
