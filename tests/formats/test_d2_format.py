"""D2: read, write, round trips, warnings, hostile text, the official D2 compiler."""

from __future__ import annotations

from typing import Any

import pytest
from format_strategies import any_machine_configs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_mermaid_format import EXAMPLE, LOSSY, run_validator, structure, structure_machines

from statekit import tools
from statekit.errors import ToolError
from statekit.formats import detect_format, read_any, write_format
from statekit.model import parse_machine


def compiles(texts: list[str]) -> list[dict[str, Any]]:
    return run_validator("d2_compile.mjs", texts, "@terrastruct/d2")


def test_the_example_round_trips_and_compiles() -> None:
    model = parse_machine(EXAMPLE)
    _, text, warnings = write_format(model, "d2")
    assert isinstance(text, str)
    assert "style.stroke-dash: 4" in text and "style.double-border: true" in text
    assert [w["code"] for w in warnings] == ["id_lost"]
    back = read_any(text)
    assert back.format == "d2"
    assert structure(back.model) == structure(model)
    assert back.model.nodes["(machine).idle"].description == "Nothing plays"
    assert compiles([text]) == [{"ok": True, "error": None}]


def test_history_states_are_h_circles() -> None:
    config = {"initial": "a", "states": {"a": {"initial": "x", "states": {"x": {}, "hist": {"type": "history"},
                                                                        "deep": {"type": "history", "history": "deep"}}}}}
    model = parse_machine(config)
    _, text, warnings = write_format(model, "d2")
    assert 'hist: "H" {' in text and 'deep: "H*" {' in text and "shape: circle" in text
    assert not warnings
    back = read_any(text, "d2").model
    assert back.nodes["(machine).a.hist"].type == "history"
    assert back.nodes["(machine).a.deep"].history == "deep"
    assert compiles([str(text)])[0]["ok"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(structure_machines())
def test_structure_round_trips_through_d2(config: dict[str, Any]) -> None:
    model = parse_machine(config)
    _, text, warnings = write_format(model, "d2")
    assert not warnings, warnings
    outcome = read_any(text, "d2")
    assert structure(outcome.model) == structure(model), text
    assert {w["code"] for w in outcome.warnings} <= {"assumed_always"}


@settings(max_examples=1, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(structure_machines(), min_size=40, max_size=40))
def test_written_d2_compiles(configs: list[dict[str, Any]]) -> None:
    texts = [str(write_format(parse_machine(config), "d2")[1]) for config in configs]
    results = compiles(texts)
    failures = [(text, result) for text, result in zip(texts, results, strict=True) if not result["ok"]]
    assert not failures, failures[:2]


HAND_WRITTEN = """
# a door
direction: right
closed: Closed door {
  tooltip: 'Keep it shut'
}
opened
closed -> opened: OPEN [unlocked] / creak
opened -> closed: {label: CLOSE; style.stroke: red}
opened -> broken
broken: {
  style: {double-border: true}
}
machine room.pump -> machine room."valve.1": PUMP; machine room.pump <- machine room."valve.1"
"""


def test_a_hand_written_diagram_reads_with_assumptions_reported() -> None:
    outcome = read_any(HAND_WRITTEN)
    assert outcome.format == "d2"
    model = outcome.model
    nodes = model.nodes
    closed = nodes["(machine).Closed door"]
    assert closed.description == "Keep it shut"
    assert model.root.initial == "Closed door"
    open_ = next(t for t in closed.transitions if t.event == "OPEN")
    assert open_.guard is not None and open_.guard.type == "unlocked"
    assert [a.type for a in open_.actions] == ["creak"]
    assert [t.event for t in nodes["(machine).opened"].transitions] == ["CLOSE", ""]
    assert nodes["(machine).broken"].type == "final"
    room = nodes["(machine).machine room"]
    assert [child.key for child in room.children] == ["pump", "valve.1"]
    assert room.children[1].transitions[0].kind == "always"
    codes = {w["code"] for w in outcome.warnings}
    assert {"assumed_initial", "assumed_always"} <= codes


def test_skipped_d2_features_are_warnings() -> None:
    text = "vars: {x: 1}\na -> b\n(a -> b)[0].style.stroke: red\nclasses: {c: {style.fill: red}}\n*.style.fill: red\n"
    outcome = read_any(text, "d2")
    assert [w["code"] for w in outcome.warnings].count("ignored_statement") == 4
    assert [node.key for node in outcome.model.root.children] == ["a", "b"]


def test_undirected_edges_are_assumed_directions() -> None:
    outcome = read_any("a <-> b: X\nb -- c: Y\n", "d2")
    assert [(t.source_id, t.event) for t in outcome.model.transitions()] == [
        ("(machine).a", "X"), ("(machine).b", "X"), ("(machine).b", "Y")]
    assert "assumed_direction" in {w["code"] for w in outcome.warnings}


def test_case_insensitive_keys_get_distinct_ids() -> None:
    model = parse_machine({"initial": "a", "states": {"a": {"on": {"GO": "A"}}, "A": {}, "shape": {}, "a b": {}}})
    _, text, _ = write_format(model, "d2")
    assert 'A_2: "A"' in text and 'shape_: "shape"' in text
    assert structure(read_any(text, "d2").model) == structure(model)
    assert compiles([str(text)])[0]["ok"]


def test_detection() -> None:
    assert detect_format("a -> b: GO\n") == "d2"
    assert detect_format("x: {shape: circle}\n") == "d2"
    assert detect_format("stateDiagram-v2\n a --> b\n") == "mermaid"
    assert detect_format('{"initial": "a", "states": {"a": {}}}') != "d2"


@pytest.mark.parametrize("code", [
    "context_lost", "id_lost", "actions_lost", "tags_lost", "meta_lost", "invoke_lost", "guard_lost",
    "actions_as_text", "targetless_lost", "multiple_targets", "reenter_lost", "event_kind_as_name",
    "root_transition_lost", "output_lost",
])
def test_every_loss_is_a_warning(code: str) -> None:
    _, _text, warnings = write_format(parse_machine(LOSSY), "d2")
    assert code in {w["code"] for w in warnings}


def test_the_lossy_machine_and_a_parallel_root_still_compile() -> None:
    _, lossy, _ = write_format(parse_machine(LOSSY), "d2")
    _, parallel, warnings = write_format(parse_machine({"type": "parallel", "states": {"a": {}, "b": {}}}), "d2")
    assert "parallel_root" in {w["code"] for w in warnings}
    assert [result["ok"] for result in compiles([str(lossy), str(parallel)])] == [True, True]


def test_convert_machine_writes_and_detects_d2() -> None:
    result = tools.call("convert_machine", {"machine": EXAMPLE, "to": "d2"})
    assert result["format"] == "d2"
    back = tools.call("convert_machine", {"machine": result["content"], "to": "xstate"})
    assert back["from"] == "d2"
    assert structure(parse_machine(back["content"])) == structure(parse_machine({**EXAMPLE, "id": "(machine)"}))
    mermaid = tools.call("convert_machine", {"machine": result["content"], "to": "mermaid"})
    assert mermaid["content"].startswith("stateDiagram-v2")


@pytest.mark.parametrize("text", [
    "",
    "   \n",
    "a: {\n" * 5000,
    "a: {\n" * 70 + "}\n" * 70,
    ".".join(["a"] * 100) + " -> b",
    "}\n",
    "a -> b\n" + "x" * 2_100_000,
    "a: 'unterminated\n",
    "@import\n",
    "...@x\n",
    "a -> : b\n",
    "a: [1, 2\n",
    "a: |md\nnever ends\n",
    '"""\nblock comment never ends\n',
    "a.style -> b\n",
])
def test_hostile_text_is_invalid_input(text: str) -> None:
    with pytest.raises(ToolError) as error:
        read_any(text, "d2")
    assert error.value.code == "invalid_input"


_PIECES = [*"ab->:{}.;\n\"'#|[]()*_", "shape: circle", "style.", "label", " -> ", " <- ", "--", "<->", "H", '""']


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=120).map("".join))
def test_any_text_reads_or_is_invalid_input(text: str) -> None:
    try:
        outcome = read_any(text, "d2")
    except ToolError as error:
        assert error.code == "invalid_input"
    else:
        write_format(outcome.model, "d2")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_machine_configs())
def test_any_machine_writes_and_reads_back(config: dict[str, Any]) -> None:
    model = parse_machine(config)
    _, text, warnings = write_format(model, "d2")
    assert all(set(w) == {"code", "message", "path"} for w in warnings)
    back = read_any(text, "d2").model
    assert len(back.nodes) >= len([node for node in model.root.walk() if node is not model.root])


@settings(max_examples=1, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(any_machine_configs(), min_size=40, max_size=40))
def test_any_machine_as_d2_compiles(configs: list[dict[str, Any]]) -> None:
    texts = [str(write_format(parse_machine(config), "d2")[1]) for config in configs]
    failures = [(text, result) for text, result in zip(texts, compiles(texts), strict=True) if not result["ok"]]
    assert not failures, failures[:2]


def test_dollar_signs_are_not_d2_substitutions() -> None:
    model = parse_machine({"initial": "a${b}", "states": {"a${b}": {"on": {"GO$": "c"}}, "c": {}}})
    _, text, _ = write_format(model, "d2")
    assert structure(read_any(text, "d2").model) == structure(model)
    assert compiles([str(text)])[0]["ok"]


def test_edges_inside_containers_are_relative_and_underscore_is_the_parent() -> None:
    text = "outer: {\n  x -> y: GO\n  y -> _.z: UP\n}\nouter.y -> z: BACK\n"
    model = read_any(text, "d2").model
    assert [(t.source_id, t.event, t.targets) for t in model.transitions()] == [
        ("(machine).outer.x", "GO", ("y",)), ("(machine).outer.y", "UP", ("#(machine).z",)),
        ("(machine).outer.y", "BACK", ("#(machine).z",))]
    assert compiles([text])[0]["ok"]
    with pytest.raises(ToolError):
        read_any("a -> _.b\n", "d2")
