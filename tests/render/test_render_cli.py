"""`statekit render` through `add_render_command` on a parser of its own."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from machines import PLAYER

from statekit.cli.render import add_commands as add_render_command
from statekit.render import find_engine


def run(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="statekit")
    add_render_command(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["render", *argv])
    code: int = args.handler(args)
    return code


@pytest.fixture
def machine_file(tmp_path: Path) -> Path:
    path = tmp_path / "player.json"
    path.write_text(json.dumps(PLAYER), encoding="utf-8")
    return path


@pytest.mark.needs(find_engine(), "a layout engine (graphviz-pure or dot)", "pip install -e '.[render]'")
def test_svg_png_dot(machine_file: Path, tmp_path: Path) -> None:
    assert run(str(machine_file), "-o", str(tmp_path / "a.svg"), "--direction", "right") == 0
    assert "<svg" in (tmp_path / "a.svg").read_text(encoding="utf-8")
    assert run(str(machine_file), "-o", str(tmp_path / "a.png"), "--parent", "player.playing") == 0
    assert (tmp_path / "a.png").read_bytes().startswith(b"\x89PNG")
    assert run(str(machine_file), "-o", str(tmp_path / "a.dot"), "--depth", "1") == 0
    assert "rankdir=TB" in (tmp_path / "a.dot").read_text(encoding="utf-8")


def test_html_is_a_standalone_viewer(machine_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "a.html"
    assert run(str(machine_file), "-o", str(out)) == 0
    html = out.read_text(encoding="utf-8")
    assert 'id="statekit-result"' in html and "</script>alert" not in html
    embedded = html.split('id="statekit-result">', 1)[1].split("</script>", 1)[0]
    result = json.loads(embedded)
    assert result["structuredContent"]["schemaVersion"] == "2.0"
    assert "<script>alert(1)</script>" in result["structuredContent"]["interactive"]["graphJson"]


def test_errors(machine_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(str(machine_file), "-o", str(tmp_path / "a.gif")) == 2
    assert run(str(machine_file), "-o", str(tmp_path / "a.svg"), "--parent", "nope") == 2
    assert run(str(tmp_path / "missing.json"), "-o", str(tmp_path / "a.svg")) == 2
    assert "statekit render:" in capsys.readouterr().err
