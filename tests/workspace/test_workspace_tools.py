"""list_machines / get_machine: discovery, stable ids, ignores, and no escape from the root."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from statekit import tools
from statekit.errors import ToolError
from statekit.tools.registry import ToolContext

PLAYER = {"id": "player", "initial": "paused", "states": {"paused": {"on": {"PLAY": "playing"}}, "playing": {}}}
SCXML = """<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" name="door" initial="closed">
  <state id="closed"><transition event="OPEN" target="open"/></state><state id="open"/></scxml>"""


def call(name: str, arguments: dict[str, Any], root: Path) -> dict[str, Any]:
    return tools.call(name, arguments, context=ToolContext(workspace_root=str(root)))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "machines").mkdir(parents=True)
    (root / "machines" / "player.json").write_text(json.dumps(PLAYER))
    (root / "machines" / "door.scxml").write_text(SCXML)
    (root / "machines" / "toggle.yaml").write_text("id: toggle\ninitial: off\nstates:\n  off: {on: {T: on}}\n  on: {on: {T: off}}\n")
    (root / "package.json").write_text(json.dumps({"name": "app", "version": "1.0.0"}))
    (root / "node_modules" / "dep").mkdir(parents=True)
    (root / "node_modules" / "dep" / "m.json").write_text(json.dumps(PLAYER))
    (root / "build").mkdir()
    (root / "build" / "copy.json").write_text(json.dumps(PLAYER))
    (root / ".gitignore").write_text("build/\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def test_lists_machines_of_every_registered_format_and_skips_the_rest(workspace: Path) -> None:
    listed = call("list_machines", {}, workspace)["machines"]
    ids = [m["machineId"] for m in listed]
    assert "machines/player.json" in ids and "machines/toggle.yaml" in ids and "machines/door.scxml" in ids
    assert not any(i.startswith(("node_modules/", "build/")) or i == "package.json" for i in ids)
    assert ids == sorted(ids)
    again = [m["machineId"] for m in call("list_machines", {}, workspace)["machines"]]
    assert again == ids


def test_get_machine_returns_the_config(workspace: Path) -> None:
    machine = call("get_machine", {"machineId": "machines/player.json"}, workspace)["machine"]
    assert machine["config"]["states"]["paused"]["on"]["PLAY"] == "playing"
    door = call("get_machine", {"machineId": "machines/door.scxml"}, workspace)["machine"]
    assert door["format"] == "scxml" and door["name"] == "door"


@pytest.mark.parametrize("machine_id", ["../outside.json", "/etc/passwd", "machines/../../outside.json", "a\x00b.json"])
def test_paths_cannot_leave_the_root(workspace: Path, machine_id: str) -> None:
    (workspace.parent / "outside.json").write_text(json.dumps(PLAYER))
    with pytest.raises(ToolError) as caught:
        call("get_machine", {"machineId": machine_id}, workspace)
    assert caught.value.code == "invalid_input"


def test_symlinks_out_of_the_root_are_refused(workspace: Path) -> None:
    outside = workspace.parent / "secret.json"
    outside.write_text(json.dumps(PLAYER))
    os.symlink(outside, workspace / "machines" / "link.json")
    os.symlink(workspace.parent, workspace / "machines" / "up")
    listed = [m["machineId"] for m in call("list_machines", {}, workspace)["machines"]]
    assert "machines/link.json" not in listed and not any(i.startswith("machines/up/") for i in listed)
    for machine_id in ("machines/link.json", "machines/up/secret.json"):
        with pytest.raises(ToolError) as caught:
            call("get_machine", {"machineId": machine_id}, workspace)
        assert caught.value.code == "invalid_input"


def test_ignored_and_missing_files_are_not_found(workspace: Path) -> None:
    for machine_id in ("build/copy.json", "node_modules/dep/m.json", "machines/none.json", "package.json"):
        with pytest.raises(ToolError) as caught:
            call("get_machine", {"machineId": machine_id}, workspace)
        assert caught.value.code == "not_found", machine_id


def test_directory_filter_and_its_safety(workspace: Path) -> None:
    listed = call("list_machines", {"directory": "machines"}, workspace)["machines"]
    assert {m["file"] for m in listed} == {"machines/player.json", "machines/door.scxml", "machines/toggle.yaml"}
    with pytest.raises(ToolError):
        call("list_machines", {"directory": "../"}, workspace)
