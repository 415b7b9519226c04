"""The format registry, detection, and the convert_machine / validate / simulate tools over it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from format_strategies import any_machine_configs
from hypothesis import HealthCheck, given, settings

import statekit.tools as tools
from statekit.errors import ToolError
from statekit.formats import (
    _FORMATS,
    BUILTIN_FORMAT_MODULES,
    Source,
    detect_format,
    formats,
    get_format,
    read_any,
    register_format,
    writable_formats,
    write_format,
)
from statekit.model import machine_to_config, parse_machine

PLAYER = {
    "id": "player",
    "initial": "paused",
    "states": {
        "paused": {"on": {"PLAY": "playing"}},
        "playing": {"on": {"STOP": "stopped"}},
        "stopped": {"type": "final"},
    },
}
PLAYER_SCXML = """<scxml xmlns="http://www.w3.org/2005/07/scxml" name="player" initial="paused">
  <state id="paused"><transition event="PLAY" target="playing" /></state>
  <state id="playing"><transition event="STOP" target="stopped" /></state>
  <final id="stopped" />
</scxml>"""


def test_builtin_formats_are_registered_with_their_capabilities() -> None:
    known = formats()
    assert {"xstate", "scxml", "xgraph", "digraph"} <= set(known)
    assert known["digraph"].write is None
    assert {"xstate", "yaml", "scxml", "xgraph"} <= set(writable_formats())
    assert list(known)[:1] == ["xstate"]
    assert BUILTIN_FORMAT_MODULES[0] == "xstate_json"


def test_aliases_and_case_resolve_to_the_format() -> None:
    assert get_format("JSON").name == "xstate"
    assert get_format("DigraphDef").name == "digraph"
    with pytest.raises(ToolError) as raised:
        get_format("bpmn")
    assert raised.value.code == "invalid_input" and "known formats" in raised.value.message


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (PLAYER, "xstate"),
        (json.dumps(PLAYER), "xstate"),
        ("id: player\ninitial: a\nstates:\n  a: {}\n", "xstate"),
        ({"states": {}}, "xstate"),
        ({"anything": 1}, "xstate"),
        (PLAYER_SCXML, "scxml"),
        ("\ufeff<?xml version='1.0'?>\n<!-- c -->\n<scxml version='1.0'/>", "scxml"),
        (b"<scxml xmlns='http://www.w3.org/2005/07/scxml' version='1.0'/>", "scxml"),
        ({"nodes": [], "edges": []}, "xgraph"),
        ('{"id": "g", "nodes": [], "edges": []}', "xgraph"),
        ({"root": "r", "nodes": {}, "edges": {}}, "digraph"),
        ({"digraph": {"root": "r", "nodes": {}, "edges": {}}}, "digraph"),
    ],
)
def test_detection(value: Any, expected: str) -> None:
    assert detect_format(value) == expected


def test_undetectable_input_is_invalid_input_naming_the_formats() -> None:
    with pytest.raises(ToolError) as raised:
        detect_format(12)
    assert "pass `from`" in raised.value.message


def test_registering_twice_is_a_programming_error() -> None:
    with pytest.raises(ValueError):
        register_format("scxml")
    with pytest.raises(ValueError):
        register_format("brand-new-format", aliases=("json",))


def test_a_throwing_detector_does_not_break_detection() -> None:
    def explode(source: Source) -> float:
        raise RuntimeError("boom")

    register_format("test-exploding-detector", read=lambda value: (parse_machine({}), []), detect=explode)
    try:
        assert detect_format(PLAYER_SCXML) == "scxml"
    finally:  # the registry is process-wide: a format left behind shows in every later tool listing
        del _FORMATS["test-exploding-detector"]


def test_read_any_falls_back_to_the_config_reader_for_its_precise_errors() -> None:
    with pytest.raises(ToolError) as raised:
        read_any("states: [unclosed")
    assert raised.value.code == "invalid_input" and "line 1" in raised.value.message


# --- convert_machine ---------------------------------------------------------------------------------


def test_convert_machine_spec_examples() -> None:
    scxml = tools.call("convert_machine", {"machine": PLAYER, "to": "scxml"})
    assert scxml["format"] == "scxml" and scxml["from"] == "xstate" and scxml["warnings"] == []
    assert '<final id="stopped"' in scxml["content"]
    xstate = tools.call("convert_machine", {"machine": PLAYER_SCXML, "to": "xstate"})
    assert xstate["content"] == PLAYER and xstate["from"] == "scxml"
    xgraph = tools.call("convert_machine", {"machine": PLAYER, "to": "xgraph"})
    assert xgraph["format"] == "xgraph" and len(xgraph["content"]["nodes"]) == 4
    back = tools.call("convert_machine", {"machine": xgraph["content"], "from": "xgraph", "to": "json"})
    assert back["content"] == PLAYER and back["format"] == "xstate"


def test_convert_machine_output_matches_its_schema() -> None:
    import jsonschema

    spec = tools.get("convert_machine")
    for target in ("xstate", "scxml", "xgraph"):
        jsonschema.validate(tools.call("convert_machine", {"machine": PLAYER, "to": target}), spec.output_schema)
    assert set(spec.argument_schemas["to"]["enum"]) >= {"xstate", "scxml", "xgraph"}
    assert "digraph" not in spec.argument_schemas["to"]["enum"]
    assert "digraph" in spec.argument_schemas["from"]["enum"]


def test_convert_machine_summary_lists_warnings_and_content() -> None:
    spec = tools.get("convert_machine")
    result = tools.call("convert_machine", {"machine": {**PLAYER, "states": {**PLAYER["states"], "paused": {
        "tags": ["t"], "on": {"PLAY": "playing"}}}}, "to": "scxml"})
    assert spec.summarize is not None
    text = spec.summarize(result)
    assert "Converted xstate to scxml (1 warning(s))" in text and "tags_lost" in text and "<scxml" in text


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"machine": PLAYER}, "`to` is required"),
        ({"to": "scxml"}, "`machine` is required"),
        ({"machine": PLAYER, "to": "digraph"}, "cannot be written"),
        ({"machine": PLAYER, "to": "bpmn"}, "unknown format"),
        ({"machine": PLAYER, "from": 3, "to": "scxml"}, "`from` must be"),
        ({"machine": PLAYER_SCXML, "from": "xgraph", "to": "scxml"}, "nodes"),
    ],
)
def test_convert_machine_bad_arguments(arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(ToolError) as raised:
        tools.call("convert_machine", arguments)
    assert raised.value.code == "invalid_input"
    assert message in raised.value.message


# --- every format into validate_machine and simulate_machine ------------------------------------------


def test_validate_and_simulate_accept_scxml() -> None:
    assert tools.call("validate_machine", {"machine": PLAYER_SCXML}) == {
        "ok": True, "issues": [], "normalization": {"format": "scxml", "assumed": []}}
    steps = tools.call("simulate_machine", {"machine": PLAYER_SCXML, "events": ["PLAY", "STOP"]})["steps"]
    assert [s["value"] for s in steps] == ["paused", "playing", "stopped"]


def test_validate_and_simulate_accept_xgraph_and_digraph() -> None:
    graph = tools.call("convert_machine", {"machine": PLAYER, "to": "xgraph"})["content"]
    assert tools.call("validate_machine", {"machine": graph})["ok"] is True
    assert tools.call("simulate_machine", {"machine": json.dumps(graph), "events": ["PLAY"]})["steps"][-1]["value"] == (
        "playing")
    structural = {"nodes": [{"id": "a"}, {"id": "b"}], "edges": [{"sourceId": "a", "targetId": "b", "label": "GO"}]}
    assert tools.call("simulate_machine", {"machine": structural, "events": ["GO"]})["steps"][-1]["value"] == "b"
    # What a structure-only graph lacked is reported, by both tools.
    assumed = {a["code"] for a in tools.call("validate_machine", {"machine": structural})["normalization"]["assumed"]}
    assert "assumed_initial" in assumed
    simulated = tools.call("simulate_machine", {"machine": structural, "events": []})["normalization"]
    assert simulated["format"] == "xgraph" and "assumed_initial" in {a["code"] for a in simulated["assumed"]}


def test_validate_reports_problems_of_a_converted_machine() -> None:
    scxml = ('<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0"><state id="a">'
             '<transition event="GO" target="b"/></state><state id="b"/><state id="c"/></scxml>')
    result = tools.call("validate_machine", {"machine": scxml})
    assert any(issue["code"] == "unreachable_state" for issue in result["issues"]), result


def test_load_model_reports_normalization() -> None:
    from statekit.tools.inputs import load_model, load_model_with_normalization

    structural = {"nodes": [{"id": "a"}, {"id": "b"}], "edges": [{"sourceId": "a", "targetId": "b"}]}
    model, normalization = load_model_with_normalization(structural)
    assert normalization["format"] == "xgraph"
    assert {a["code"] for a in normalization["assumed"]} == {"assumed_machine_id", "assumed_initial", "assumed_event"}
    assert normalization["warnings"] == normalization["assumed"]
    assert machine_to_config(load_model(PLAYER_SCXML, "scxml")) == PLAYER
    assert machine_to_config(model)["initial"] == "a"


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_machine_configs())
def test_xstate_json_and_yaml_are_lossless(config: dict[str, Any]) -> None:
    model = parse_machine(config)
    for target in ("xstate", "yaml"):
        _, content, warnings = write_format(model, target)
        assert warnings == []
        text = content if isinstance(content, str) else json.dumps(content)
        outcome = read_any(text)
        assert outcome.format == "xstate"
        assert outcome.model == model
