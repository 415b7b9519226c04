"""Legacy Stately DigraphDef (ExtractorDigraphDef) reading."""

from __future__ import annotations

from typing import Any

import pytest

from statekit.errors import ToolError
from statekit.formats import detect_format, read_any, write_format
from statekit.model import machine_to_config


def node(unique_id: str, parent: str | None, key: str, **data: Any) -> dict[str, Any]:
    base = {"description": None, "entry": [], "exit": [], "history": None, "initial": None, "invoke": [], "key": key,
            "metaEntries": [], "tags": [], "type": "normal"}
    return {"type": "node", "uniqueId": unique_id, "parentId": parent, "data": {**base, **data}}


def edge(unique_id: str, source: str, targets: list[str], event: dict[str, Any], **data: Any) -> dict[str, Any]:
    base = {"actions": [], "description": None, "eventTypeData": event, "guard": None, "internal": None, "metaEntries": []}
    return {"type": "edge", "uniqueId": unique_id, "source": source, "targets": targets, "data": {**base, **data}}


def block(unique_id: str, parent: str, kind: str, properties: dict[str, Any], source: str = "x") -> dict[str, Any]:
    return {"uniqueId": unique_id, "parentId": parent, "sourceId": source, "blockType": kind, "properties": properties}


DIGRAPH: dict[str, Any] = {
    "root": "state-0",
    "blocks": {
        "block-0": block("block-0", "edge-0", "action", {"type": "track", "params": {"k": 1}}),
        "block-1": block("block-1", "edge-0", "guard", {"type": "isReady", "params": {}}),
        "block-2": block("block-2", "state-2", "actor", {"src": "fetchUser", "id": "fetcher"}),
        "block-3": block("block-3", "state-1", "action", {"type": "enterIdle", "params": {}}),
        "block-4": block("block-4", "state-1", "tag", {"name": "waiting"}, "xstate.tag"),
    },
    "nodes": {
        "state-0": node("state-0", None, "player", initial="state-1"),
        "state-1": node("state-1", "state-0", "idle", entry=["block-3"], tags=["block-4"],
                        metaEntries=[["owner", "ann"]], description="Waiting"),
        "state-2": node("state-2", "state-0", "loading", invoke=["block-2"], initial="state-3"),
        "state-3": node("state-3", "state-2", "spinner"),
        "state-4": node("state-4", "state-0", "done", type="final"),
        "state-5": node("state-5", "state-2", "hist", type="history", history="deep"),
    },
    "edges": {
        "edge-0": edge("edge-0", "state-1", ["state-2"], {"type": "named", "eventType": "LOAD"},
                       actions=["block-0"], guard="block-1", description="go"),
        "edge-1": edge("edge-1", "state-2", ["state-4"], {"type": "invocation.done", "invocationId": "fetcher"}),
        "edge-2": edge("edge-2", "state-2", ["state-1"], {"type": "invocation.error", "invocationId": "fetcher"}),
        "edge-3": edge("edge-3", "state-3", ["state-4"], {"type": "after", "delay": "1000"}),
        "edge-4": edge("edge-4", "state-1", ["state-1"], {"type": "wildcard"}, internal=False),
        "edge-5": edge("edge-5", "state-2", ["state-3"], {"type": "always"}),
        "edge-6": edge("edge-6", "state-2", ["state-4"], {"type": "state.done"}),
    },
    "implementations": {"actions": {}, "actors": {}, "guards": {}},
    "data": {"context": {"count": 0}},
}


def test_a_digraph_reads_into_the_machine_it_describes() -> None:
    assert detect_format(DIGRAPH) == "digraph"
    outcome = read_any(DIGRAPH)
    assert outcome.warnings == []
    assert machine_to_config(outcome.model) == {
        "id": "player",
        "context": {"count": 0},
        "initial": "idle",
        "states": {
            "idle": {
                "description": "Waiting", "tags": ["waiting"], "meta": {"owner": "ann"}, "entry": "enterIdle",
                "on": {
                    "LOAD": {"target": "loading", "guard": "isReady", "actions": {"type": "track", "params": {"k": 1}},
                             "description": "go"},
                    "*": {"target": "idle", "reenter": True},
                },
            },
            "loading": {
                "initial": "spinner",
                "invoke": {"src": "fetchUser", "id": "fetcher", "onDone": "done", "onError": "idle"},
                "always": ".spinner",
                "onDone": "done",
                "states": {
                    "spinner": {"after": {"1000": "#player.done"}},
                    "hist": {"type": "history", "history": "deep"},
                },
            },
            "done": {"type": "final"},
        },
    }


def test_a_wrapped_digraph_text_reads_too() -> None:
    import json

    assert read_any(json.dumps({"digraph": DIGRAPH})).format == "digraph"


def test_missing_defaults_are_reported() -> None:
    digraph = {"root": "r", "nodes": {"r": node("r", None, "(machine)"), "a": node("a", "r", ""),
                                      "b": node("b", "r", "b")}, "edges": {}}
    outcome = read_any(digraph, "digraph")
    assert machine_to_config(outcome.model) == {"initial": "a", "states": {"a": {}, "b": {}}}
    assert {w["code"] for w in outcome.warnings} == {"assumed_key", "assumed_initial"}
    assert [w["code"] for w in outcome.normalization["assumed"]] == ["assumed_key", "assumed_initial"]


def test_code_context_unknown_blocks_and_events_are_warnings() -> None:
    digraph = {
        "root": "r",
        "nodes": {"r": node("r", None, "m", initial="a"), "a": node("a", "r", "a", entry=["nope"])},
        "edges": {"e": edge("e", "a", ["a"], {"type": "mystery"}), "i": edge("i", "a", [], {"type": "init"})},
        "blocks": {},
        "data": {"context": "{{() => ({})}}"},
    }
    outcome = read_any(digraph, "digraph")
    assert {w["code"] for w in outcome.warnings} == {"unknown_block", "unknown_event", "init_edge_skipped", "context_lost"}


@pytest.mark.parametrize(
    ("digraph", "message"),
    [
        ({"root": "r", "nodes": {}, "edges": {}}, "not one of the nodes"),
        ({"root": "r", "nodes": {"r": node("r", None, "m")}}, "`edges`"),
        ({"root": "r", "nodes": {"r": node("r", None, "m"), "a": node("a", "zz", "a")}, "edges": {}}, "unknown parentId"),
        ({"root": "r", "nodes": {"r": node("r", None, "m"), "a": node("a", "b", "a"), "b": node("b", "a", "b")},
          "edges": {}}, "not reachable"),
        ({"root": "r", "nodes": {"r": node("r", None, "m")}, "edges": {"e": {"source": "zz"}}}, "`source`"),
    ],
)
def test_malformed_digraphs_are_invalid_input(digraph: dict[str, Any], message: str) -> None:
    with pytest.raises(ToolError) as raised:
        read_any(digraph, "digraph")
    assert raised.value.code == "invalid_input"
    assert message in raised.value.message


def test_digraph_is_read_only() -> None:
    model = read_any(DIGRAPH).model
    with pytest.raises(ToolError) as raised:
        write_format(model, "digraph")
    assert "cannot be written" in raised.value.message
