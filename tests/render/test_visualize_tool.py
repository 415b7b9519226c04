"""`visualize_machine` through the registry: the v2 envelope, caps, statuses and errors."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator

import pytest
from machines import PLAYER, chain_machine

from statekit import tools
from statekit.errors import ToolError
from statekit.render import find_engine
from statekit.tools import registry, visualize_tools
from statekit.tools.schema_check import SchemaCheck

needs_engine = pytest.mark.needs(find_engine(), "a layout engine (graphviz-pure or dot)", "pip install -e '.[render]'")


@pytest.fixture
def limits() -> Iterator[visualize_tools.VisualizeLimits]:
    saved = (visualize_tools.LIMITS.max_graph_bytes, visualize_tools.LIMITS.max_png_images)
    yield visualize_tools.LIMITS
    visualize_tools.configure_limits(max_graph_bytes=saved[0], max_png_images=saved[1])


def structured(result: dict[str, object]) -> dict[str, object]:
    return {key: value for key, value in result.items() if key != visualize_tools.IMAGES_KEY}


@needs_engine
def test_v2_envelope_matches_the_output_schema() -> None:
    result = tools.call("visualize_machine", {"machine": PLAYER, "direction": "right"})
    spec = registry.get("visualize_machine")
    assert SchemaCheck(spec.output_schema).first_violation(structured(result)) is None
    assert result["schemaVersion"] == "2.0"
    graph = json.loads(result["interactive"]["graphJson"])
    assert result["interactive"]["status"] == "ready"
    assert result["interactive"]["byteLength"] == len(result["interactive"]["graphJson"].encode())
    ids = {node["id"] for node in graph["nodes"]}
    assert {"player", "player.playing.audio.on", "player.stopped"} <= ids
    root = next(node for node in graph["nodes"] if node["id"] == "player")
    assert root["parentId"] is None and root["initialNodeId"] == "player.paused"
    play = next(edge for edge in graph["edges"] if edge["data"]["event"] == "PLAY")
    assert play["sourceId"] == "player.paused" and play["targetId"] == "player.playing"
    assert (play["label"], play["data"]["guard"], play["data"]["actions"]) == (
        "PLAY", "hasTrack", ["startClock"])
    images = result["pngFallback"]["images"]
    blocks = result[visualize_tools.IMAGES_KEY]
    assert [image["parentNodeId"] for image in images] == [
        "player", "player.playing", "player.playing.audio", "player.playing.video"]
    assert len(blocks) == len(images)
    for block in blocks:
        assert block["type"] == "image" and block["mimeType"] == "image/png"
        assert base64.b64decode(block["data"]).startswith(b"\x89PNG")


@needs_engine
def test_parent_node_ids_limit_the_images() -> None:
    result = tools.call("visualize_machine", {"machine": PLAYER, "parentNodeIds": ["player.playing.video"]})
    assert [i["parentNodeId"] for i in result["pngFallback"]["images"]] == ["player.playing.video"]
    with pytest.raises(ToolError) as error:
        tools.call("visualize_machine", {"machine": PLAYER, "parentNodeIds": ["player.paused"]})
    assert error.value.code == "invalid_input"


@needs_engine
def test_caps_make_each_half_report_its_own_status(limits: visualize_tools.VisualizeLimits) -> None:
    visualize_tools.configure_limits(max_graph_bytes=100, max_png_images=2)
    result = tools.call("visualize_machine", {"machine": PLAYER})
    assert result["interactive"]["status"] == "unavailable"
    assert "over the 100-byte limit" in result["interactive"]["reason"]
    assert "graphJson" not in result["interactive"]
    assert result["pngFallback"]["status"] == "ready"
    assert len(result["pngFallback"]["images"]) == 2
    assert result["pngFallback"]["omittedParentNodeIds"] == ["player.playing.audio", "player.playing.video"]
    text = registry.get("visualize_machine").summarize(structured(result))  # type: ignore[misc]
    assert "unavailable" in text and "not drawn" in text


def test_png_unavailable_without_an_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STATEKIT_GRAPHVIZ", "none")
    result = tools.call("visualize_machine", {"machine": json.dumps(PLAYER)})
    assert result["pngFallback"] == {
        "status": "unavailable", "images": [], "reason": result["pngFallback"]["reason"]}
    assert "no layout engine" in result["pngFallback"]["reason"]
    assert result["interactive"]["status"] == "ready"
    assert result[visualize_tools.IMAGES_KEY] == []


def test_bad_input() -> None:
    for arguments in ({}, {"machine": "{"}, {"machine": PLAYER, "direction": "sideways"}):
        with pytest.raises(ToolError) as error:
            tools.call("visualize_machine", arguments)
        assert error.value.code == "invalid_input"


@needs_engine
def test_output_is_deterministic() -> None:
    machine = chain_machine(30)
    assert tools.call("visualize_machine", {"machine": machine}) == tools.call(
        "visualize_machine", {"machine": machine})


def test_tool_links_the_app() -> None:
    spec = registry.get("visualize_machine")
    assert spec.meta == {"ui": {"resourceUri": "ui://statekit/machine-viewer.html"}}
    assert spec.content_key == visualize_tools.IMAGES_KEY


def test_the_summary_counts_states_without_the_root() -> None:
    machine = {"id": "m", "initial": "a", "states": {"a": {"on": {"GO": "b"}}, "b": {}}}
    summary = visualize_tools.summarize(tools.call("visualize_machine", {"machine": machine}))
    if "Interactive graph ready" in summary:
        assert "Interactive graph ready: 2 states, 1 transitions." in summary


@needs_engine
def test_the_viewer_gets_the_layout_the_pngs_were_drawn_from() -> None:
    """layoutJson holds, per parent, the positions of the very engine run that drew its PNG."""
    from statekit.model import parse_machine
    from statekit.render import parent_node_ids, render_parent_pngs
    from statekit.render.draw import PNG_DPI

    result = tools.call("visualize_machine", {"machine": PLAYER})
    layout = json.loads(result["interactive"]["layoutJson"])
    graph = json.loads(result["interactive"]["graphJson"])
    assert layout["version"] == 1 and layout["direction"] == "down"
    model = parse_machine(PLAYER)
    assert sorted(layout["views"]) == sorted(parent_node_ids(model))
    images = render_parent_pngs(model, parent_node_ids(model))
    edge_ids = {edge["id"] for edge in graph["edges"]}
    for image in images:
        assert image.parent_node_id is not None and image.drawing is not None
        laid = image.drawing.layout
        view = layout["views"][image.parent_node_id]
        # the PNG is this layout at 144 dpi, plus Graphviz's pad of 0.15 inch on each side
        assert abs(image.width - (laid.width / 72 + 0.3) * PNG_DPI) <= 1
        assert abs(image.height - (laid.height / 72 + 0.3) * PNG_DPI) <= 1
        names = image.drawing.names
        for state in view["states"]:
            assert state["box"] == laid.nodes[names[state["id"]]].box.rounded()
        for frame in view["frames"]:
            assert frame["box"] == laid.frames[f"cluster_{names[frame['id']]}"].box.rounded()
        for edge in view["edges"]:
            assert set(edge["ids"]) <= edge_ids
            assert edge["ids"] or edge["initialOf"] is not None
    root = layout["views"]["player"]
    assert {state["id"] for state in root["states"]} == {
        "player.paused", "player.playing", "player.stopped", next(n["id"] for n in graph["nodes"] if "<img" in n["id"])
    }
    playing = next(state for state in root["states"] if state["id"] == "player.playing")
    assert playing["collapsed"] and [line[0] for line in playing["lines"]] == ["playing", "[7 substates]"]


@needs_engine
def test_parents_without_a_png_still_get_a_layout(limits: visualize_tools.VisualizeLimits) -> None:
    visualize_tools.configure_limits(max_png_images=1)
    result = tools.call("visualize_machine", {"machine": PLAYER})
    assert len(result["pngFallback"]["images"]) == 1
    assert len(json.loads(result["interactive"]["layoutJson"])["views"]) == 4


@needs_engine
def test_a_layout_over_the_byte_cap_is_left_out_with_a_reason(limits: visualize_tools.VisualizeLimits) -> None:
    graph_only = tools.call("visualize_machine", {"machine": PLAYER})["interactive"]["byteLength"]
    visualize_tools.configure_limits(max_graph_bytes=graph_only + 10)
    interactive = tools.call("visualize_machine", {"machine": PLAYER})["interactive"]
    assert interactive["status"] == "ready" and "layoutJson" not in interactive
    assert "over the" in interactive["layoutReason"]


def test_without_an_engine_the_viewer_lays_levels_out_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STATEKIT_GRAPHVIZ", "none")
    interactive = tools.call("visualize_machine", {"machine": PLAYER})["interactive"]
    assert interactive["status"] == "ready" and "layoutJson" not in interactive
    assert "no layout engine" in interactive["layoutReason"]
