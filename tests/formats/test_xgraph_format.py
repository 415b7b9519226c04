"""XGraph: lossless with the model, schema-valid, structural reading with normalization."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from format_strategies import any_machine_configs
from hypothesis import HealthCheck, given, settings

import statekit.tools as tools
from statekit.errors import ToolError
from statekit.formats import read_any, write_format
from statekit.formats.xgraph import SCHEMA_VERSION, schema
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


def to_xgraph(config: dict[str, Any]) -> dict[str, Any]:
    _, content, warnings = write_format(parse_machine(config), "xgraph")
    assert warnings == []
    assert isinstance(content, dict)
    return content


def test_the_spec_example_as_xgraph() -> None:
    graph = to_xgraph(PLAYER)
    assert graph["id"] == "player" and graph["type"] == "directed"
    assert graph["initialNodeId"] == "player.paused"
    assert [(n["id"], n["parentId"], n["data"]["type"]) for n in graph["nodes"]] == [
        ("player", None, "compound"),
        ("player.paused", "player", "atomic"),
        ("player.playing", "player", "atomic"),
        ("player.stopped", "player", "final"),
    ]
    assert [(e["id"], e["sourceId"], e["targetId"], e["label"]) for e in graph["edges"]] == [
        ("player.paused:PLAY:0", "player.paused", "player.playing", "PLAY"),
        ("player.playing:STOP:0", "player.playing", "player.stopped", "STOP"),
    ]
    assert graph["edges"][0]["data"] == {"kind": "on", "event": "PLAY", "targets": ["playing"], "actions": []}
    assert graph["data"] == {"schema": SCHEMA_VERSION, "machineId": "player"}
    jsonschema.validate(graph, schema())


def test_the_schema_is_a_versioned_draft_2020_12_schema() -> None:
    loaded = schema()
    jsonschema.Draft202012Validator.check_schema(loaded)
    assert loaded["$id"].endswith(":1")
    assert loaded["properties"]["data"]["properties"]["schema"]["const"] == SCHEMA_VERSION


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_machine_configs())
def test_xgraph_is_lossless_for_any_machine(config: dict[str, Any]) -> None:
    model = parse_machine(config)
    graph = to_xgraph(config)
    jsonschema.validate(graph, schema())
    # Through JSON text, as a host would store it.
    outcome = read_any(json.dumps(graph))
    assert outcome.format == "xgraph"
    assert outcome.warnings == []
    assert outcome.model == model
    assert machine_to_config(outcome.model) == machine_to_config(model)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_machine_configs())
def test_node_and_edge_ids_are_unique_and_edges_connect_nodes(config: dict[str, Any]) -> None:
    graph = to_xgraph(config)
    node_ids = [n["id"] for n in graph["nodes"]]
    assert len(set(node_ids)) == len(node_ids)
    edge_ids = [e["id"] for e in graph["edges"]]
    assert len(set(edge_ids)) == len(edge_ids)
    assert all(e["sourceId"] in node_ids and e["targetId"] in node_ids for e in graph["edges"])
    assert all(n["parentId"] is None or n["parentId"] in node_ids for n in graph["nodes"])
    assert sum(1 for n in graph["nodes"] if n["parentId"] is None) == 1


def test_duplicate_explicit_ids_get_distinct_node_ids() -> None:
    config = {"id": "m", "initial": "a", "states": {"a": {"id": "x", "on": {"GO": "#x"}}, "b": {"id": "x"}}}
    graph = to_xgraph(config)
    assert [n["id"] for n in graph["nodes"]] == ["m", "x", "m.b"]
    assert read_any(graph).model == parse_machine(config)


def test_targetless_and_unresolvable_edges_point_at_their_source() -> None:
    graph = to_xgraph({"id": "m", "initial": "a", "states": {"a": {"on": {"LOG": {"actions": "log"}, "BAD": "nowhere"}}}})
    assert [(e["targetId"], e["data"]["targets"]) for e in graph["edges"]] == [("m.a", None), ("m.a", ["nowhere"])]


# --- XGraph without semantics ---------------------------------------------------------------------


def test_a_structure_only_graph_reads_with_defaults_reported() -> None:
    graph = {
        "id": "player",
        "nodes": [{"id": "paused"}, {"id": "playing"}, {"id": "playing.fast", "parentId": "playing"},
                  {"id": "playing.slow", "parentId": "playing"}],
        "edges": [
            {"id": "e1", "sourceId": "paused", "targetId": "playing", "label": "PLAY"},
            {"id": "e2", "sourceId": "playing.fast", "targetId": "playing.slow", "label": "after 500"},
            {"id": "e3", "sourceId": "playing.slow", "targetId": "paused", "label": "always"},
            {"id": "e4", "sourceId": "playing", "targetId": "playing.slow"},
        ],
    }
    outcome = read_any(graph)
    assert outcome.format == "xgraph"
    assert machine_to_config(outcome.model) == {
        "id": "player",
        "initial": "paused",
        "states": {
            "paused": {"on": {"PLAY": "playing"}},
            "playing": {
                "initial": "fast",
                "on": {"e4": ".slow"},
                "states": {"fast": {"after": {"500": "slow"}}, "slow": {"always": "#player.paused"}},
            },
        },
    }
    assumed = outcome.normalization["assumed"]
    assert {(a["code"], a["path"]) for a in assumed} == {
        ("assumed_initial", "initialNodeId"),
        ("assumed_initial", "states.playing"),
        ("assumed_event", "edges.e4"),
        ("assumed_key", "nodes.playing.fast"),
        ("assumed_key", "nodes.playing.slow"),
    }
    assert outcome.normalization["format"] == "xgraph"


def test_a_statelyai_graph_with_machine_data_reads_its_data() -> None:
    graph = {
        "id": "toggle", "type": "directed", "initialNodeId": "inactive",
        "nodes": [
            {"type": "node", "id": "inactive", "label": "inactive", "data": {"type": "atomic", "tags": ["off"]}},
            {"type": "node", "id": "active", "label": "Switched on", "data": {"type": "final", "meta": {"m": 1}}},
        ],
        "edges": [{"type": "edge", "id": "inactive|TOGGLE|active|0", "sourceId": "inactive", "targetId": "active",
                   "label": "TOGGLE", "data": {"event": "TOGGLE", "guard": "canToggle", "description": "flip"}}],
        "data": {},
    }
    outcome = read_any(graph)
    assert machine_to_config(outcome.model) == {
        "id": "toggle",
        "initial": "inactive",
        "states": {
            "inactive": {"tags": ["off"], "on": {"TOGGLE": {"target": "active", "guard": "canToggle", "description": "flip"}}},
            "active": {"type": "final", "description": "Switched on", "meta": {"m": 1}},
        },
    }
    assert outcome.normalization["assumed"] == []


@pytest.mark.parametrize(
    ("graph", "message"),
    [
        ({"nodes": {}, "edges": []}, "arrays"),
        ({"nodes": [{"id": "a"}, {"id": "a"}], "edges": []}, "duplicate node id"),
        ({"nodes": [{"id": "a", "parentId": "zz"}], "edges": []}, "unknown parentId"),
        ({"nodes": [{"id": "a", "parentId": "b"}, {"id": "b", "parentId": "a"}], "edges": []}, "cycle"),
        ({"nodes": [{"id": "a"}], "edges": [{"sourceId": "a", "targetId": "zz"}]}, "does not exist"),
        ({"nodes": [{"id": 5}], "edges": []}, "string `id`"),
        ({"nodes": [{"id": "a", "data": {"key": "a", "type": "atomic"}}, {"id": "b", "data": {"key": "b", "type": "atomic"}}],
          "edges": [], "data": {"schema": SCHEMA_VERSION}}, "exactly one root"),
        ({"nodes": [{"id": "a", "data": {"key": "a", "type": "atomic", "invoke": True}}], "edges": [],
          "data": {"schema": SCHEMA_VERSION}}, "nodes[0].data.invoke: must be an array"),
        ({"nodes": [{"id": "a", "data": {"key": "a", "type": ["x"]}}], "edges": [], "data": {"schema": SCHEMA_VERSION}},
         "nodes[0].data.type"),
        ({"nodes": [{"id": "a", "data": {"key": "a", "type": "atomic"}}],
          "edges": [{"sourceId": "a", "targetId": "a", "data": {"kind": "sideways"}}], "data": {"schema": SCHEMA_VERSION}},
         "edges[0].data.kind"),
        ({"nodes": [{"id": "a", "parentId": ["x"]}], "edges": []}, "unknown parentId"),
    ],
)
def test_malformed_graphs_are_invalid_input(graph: dict[str, Any], message: str) -> None:
    with pytest.raises(ToolError) as raised:
        read_any(graph, "xgraph")
    assert raised.value.code == "invalid_input"
    assert message in raised.value.message


def test_a_sparse_statekit_xgraph_reads_with_defaults() -> None:
    graph = {
        "id": "m", "type": "directed", "initialNodeId": "m.a",
        "nodes": [{"type": "node", "id": "m", "parentId": None, "data": {"key": "m", "type": "compound", "initial": "a"}},
                  {"type": "node", "id": "m.a", "parentId": "m", "data": {"key": "a", "type": "atomic"}},
                  {"type": "node", "id": "m.b", "parentId": "m", "data": {"key": "b", "type": "atomic"}}],
        "edges": [{"type": "edge", "id": "e", "sourceId": "m.a", "targetId": "m.b", "label": "GO", "data": {}}],
        "data": {"schema": SCHEMA_VERSION},
    }
    jsonschema.validate(graph, schema())
    model = read_any(graph).model
    assert machine_to_config(model) == {"id": "m", "initial": "a", "states": {"a": {"on": {"GO": "#m.b"}}, "b": {}}}
    steps = tools.call("simulate_machine", {"machine": graph, "events": ["GO"]})["steps"]
    assert steps[-1]["value"] == "b"
