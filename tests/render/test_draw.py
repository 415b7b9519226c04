"""Drawing: DOT structure, SVG and PNG output, determinism, labels, hostile text."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest
from machines import HOSTILE_EVENT, HOSTILE_STATE, PLAYER, chain_machine

from needs import require
from statekit.model import parse_machine
from statekit.render import (
    DrawOptions,
    RenderUnavailable,
    find_engine,
    machine_dot,
    parent_node_ids,
    render_parent_pngs,
    render_png,
    render_svg,
)
from statekit.render.dot import quote, rankdir
from statekit.render.labels import delay_text, transition_label

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "render"
needs_engine = pytest.mark.needs(find_engine(), "a layout engine (graphviz-pure or dot)", "pip install -e '.[render]'")


def decode_png(data: bytes) -> tuple[int, int, list[bytes]]:
    """A small PNG decoder (8-bit RGB/RGBA/grey, no interlace): width, height, raw rows."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, chunks, header = 8, b"", b""
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        (crc,) = struct.unpack(">I", data[position + 8 + length : position + 12 + length])
        assert zlib.crc32(kind + body) == crc, kind
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            chunks += body
        position += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and interlace == 0
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
    raw = zlib.decompress(chunks)
    stride = width * channels
    rows: list[bytes] = []
    previous = bytearray(stride)
    for row in range(height):
        start = row * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                estimate = left + up - corner
                pa, pb, pc = abs(estimate - left), abs(estimate - up), abs(estimate - corner)
                pred = left if pa <= pb and pa <= pc else (up if pb <= pc else corner)
                line[i] = (line[i] + pred) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, rows


def dark_fraction(rows: list[bytes], width: int) -> float:
    channels = len(rows[0]) // width
    dark = total = 0
    for row in rows:
        for x in range(0, len(row), channels):
            total += 1
            if sum(row[x : x + min(channels, 3)]) < 3 * 128:
                dark += 1
    return dark / total


def test_dot_has_clusters_regions_markers_and_labels() -> None:
    model = parse_machine(PLAYER)
    dot = machine_dot(model)
    assert dot.count("subgraph cluster_") == 4  # root, playing, audio, video
    assert 'style="dashed,filled"' in dot  # parallel regions are dashed frames
    assert "(parallel)" in dot
    assert "shape=point" in dot  # initial markers
    assert "peripheries=2" in dot  # the final state
    assert '"H*"' in dot  # deep history
    assert '" PLAY [hasTrack] / startClock "' in dot
    assert '" after 1s "' in dot and '" always [fastNet] "' in dot
    assert "lhead=cluster_" in dot and "ltail=cluster_" in dot


def test_hostile_text_is_quoted_not_interpreted() -> None:
    dot = machine_dot(parse_machine(PLAYER))
    assert quote('a"b\\N') == '"a\\"b\\\\N"'
    assert '\\"window.parent.pwned' in dot
    assert quote("two\nlines") == '"two\\nlines"'


def test_directions_and_depth() -> None:
    model = parse_machine(PLAYER)
    assert "rankdir=LR" in machine_dot(model, DrawOptions(direction="right"))
    assert rankdir("BT") == "BT"
    with pytest.raises(ValueError):
        rankdir("diagonal")
    top = machine_dot(model, DrawOptions(root_id="player", depth=1))
    assert top.count("subgraph cluster_") == 1
    assert "[7 substates]" in top
    region = machine_dot(model, DrawOptions(root_id="player.playing.audio"))
    assert "#player.stopped" not in region  # nothing in audio leads out of it
    video = machine_dot(model, DrawOptions(root_id="player.playing", depth=2))
    assert video.count("subgraph cluster_") == 3


def test_edges_to_states_outside_the_view_become_stubs() -> None:
    machine = {"id": "m", "initial": "a", "states": {
        "a": {"initial": "x", "states": {"x": {"on": {"OUT": "#m.b"}}}},
        "b": {},
    }}
    dot = machine_dot(parse_machine(machine), DrawOptions(root_id="m.a"))
    assert '"#m.b"' in dot and "style=\"dashed,rounded\"" in dot


def test_labels() -> None:
    assert [delay_text(1000), delay_text(1500), delay_text(250), delay_text("slow")] == [
        "1s", "1.5s", "250ms", "slow",
    ]
    model = parse_machine({"id": "m", "initial": "a", "states": {
        "a": {"on": {"GO": {"target": "b", "guard": {"type": "xstate.and", "guards": [
            "ok", {"type": "xstate.not", "guard": "busy"}]}, "actions": ["x", {"type": "xstate.assign", "assignment": {}}]}},
              "invoke": {"src": "fetcher", "onDone": "b", "onError": "a"}},
        "b": {"type": "final"},
    }})
    labels = {t.event: transition_label(t, model.nodes[t.source_id].invoke) for t in model.transitions()}
    assert labels["GO"] == "GO [ok && !busy] / x, assign"
    assert "done: fetcher" in labels.values() and "error: fetcher" in labels.values()


@needs_engine
def test_svg_is_deterministic_and_escapes_markup() -> None:
    model = parse_machine(PLAYER)
    first, second = render_svg(model), render_svg(model)
    assert first == second
    assert first.lstrip().startswith("<?xml") and "<svg" in first
    assert "<script" not in first
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in first
    assert HOSTILE_EVENT not in first and HOSTILE_STATE not in first


@needs_engine
def test_one_png_per_parent_decodes_and_has_text() -> None:
    model = parse_machine(PLAYER)
    parents = parent_node_ids(model)
    assert parents == ["player", "player.playing", "player.playing.audio", "player.playing.video"]
    images = render_parent_pngs(model, parents)
    assert [image.parent_node_id for image in images] == parents
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for image in images:
        (ARTIFACTS / f"{image.parent_node_id}.png").write_bytes(image.data)
        width, height, rows = decode_png(image.data)
        assert (width, height) == (image.width, image.height)
        ink = dark_fraction(rows, width)
        # Not blank (frames, arrows and glyphs are drawn) and not a solid block either.
        assert 0.01 < ink < 0.5, (image.parent_node_id, ink)


@needs_engine
def test_text_is_drawn_in_the_png() -> None:
    """A label's glyphs add ink: the same machine with longer names draws more dark pixels."""
    short = parse_machine({"id": "m", "initial": "a", "states": {"a": {"on": {"E": "b"}}, "b": {}}})
    long = parse_machine({"id": "m", "initial": "a", "states": {
        "a": {"on": {"E": "b"}}, "b": {}}, "description": "ignored"})
    assert render_png(short).data == render_png(long).data  # same drawing, same bytes
    wordy = parse_machine({"id": "m", "initial": "aaaaaaaaaaaaaaa", "states": {
        "aaaaaaaaaaaaaaa": {"on": {"EVENT_WITH_A_LONG_NAME": "bbbbbbbbbbbbbbb"}},
        "bbbbbbbbbbbbbbb": {}}})
    plain = decode_png(render_png(short).data)
    worded = decode_png(render_png(wordy).data)
    assert dark_fraction(worded[2], worded[0]) * worded[0] * worded[1] > (
        dark_fraction(plain[2], plain[0]) * plain[0] * plain[1] * 1.5
    )


@needs_engine
def test_large_machine_renders() -> None:
    model = parse_machine(chain_machine(100))
    svg = render_svg(model)
    assert svg.count('class="cluster"') >= 10
    image = render_png(model, DrawOptions(root_id=model.root.id, depth=1))
    assert image.width > 0 and image.height > 0


def test_no_engine_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STATEKIT_GRAPHVIZ", "none")
    assert find_engine() is None
    with pytest.raises(RenderUnavailable, match="no layout engine"):
        render_svg(parse_machine(PLAYER))


def test_an_engine_is_installed_in_ci() -> None:
    """Locally the drawing tests skip without an engine; CI must have one (graphviz-pure)."""
    require(find_engine(), "a layout engine", "pip install -e '.[render]' (graphviz-pure)")
