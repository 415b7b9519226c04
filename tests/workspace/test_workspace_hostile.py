"""Hostile workspaces: nothing in them is ever run, only regular files are opened, limits hold.

Each test reproduces one attack measured on the git-based implementation (issue 14).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from statekit import tools
from statekit.errors import ToolError
from statekit.tools.registry import ToolContext
from statekit.workspace.scan import MAX_FILE_BYTES

PLAYER = {"id": "player", "initial": "paused", "states": {"paused": {"on": {"PLAY": "playing"}}, "playing": {}}}


def call(name: str, arguments: dict[str, Any], root: Path) -> dict[str, Any]:
    return tools.call(name, arguments, context=ToolContext(workspace_root=str(root)))


def call_with_timeout(name: str, arguments: dict[str, Any], root: Path, seconds: float = 60) -> Any:
    """Run the call in a thread so a hang fails the test instead of freezing the suite."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["result"] = call(name, arguments, root)
        except Exception as error:
            outcome["error"] = error

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"{name} hung on the workspace"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git to build a real repository")
def test_a_workspace_git_config_never_runs(tmp_path: Path) -> None:
    """core.fsmonitor names a program git would run on `git check-ignore`: it must never run."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "m.json").write_text(json.dumps(PLAYER))
    (root / "ignored.json").write_text(json.dumps(PLAYER))
    (root / ".gitignore").write_text("ignored.json\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    marker = tmp_path / "pwned"
    hook = tmp_path / "hook.sh"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    for key, value in (("core.fsmonitor", str(hook)), ("core.hooksPath", str(tmp_path)),
                       ("core.sshCommand", str(hook)), ("core.pager", str(hook))):
        subprocess.run(["git", "-C", str(root), "config", key, value], check=True)
    # The trap is armed: git itself runs the hook (proving the test can fail).
    subprocess.run(["git", "-C", str(root), "status"], capture_output=True, check=False)
    assert marker.exists(), "the fsmonitor trap did not fire under git itself"
    marker.unlink()

    listed = call("list_machines", {}, root)
    assert [m["machineId"] for m in listed["machines"]] == ["m.json"]  # .gitignore still honoured
    call("get_machine", {"machineId": "m.json"}, root)
    with pytest.raises(ToolError) as caught:
        call("get_machine", {"machineId": "ignored.json"}, root)
    assert caught.value.code == "not_found"
    assert not marker.exists(), "reading the workspace ran a program named in its .git/config"


def test_no_subprocess_is_started_while_reading_a_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "m.json").write_text(json.dumps(PLAYER))
    started: list[Any] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        started.append(args)
        raise AssertionError("a program was started")

    monkeypatch.setattr(subprocess, "Popen", refuse)
    monkeypatch.setattr(os, "posix_spawn", refuse, raising=False)
    call("list_machines", {}, tmp_path)
    call("get_machine", {"machineId": "m.json"}, tmp_path)
    assert started == []


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_named_json_is_never_opened(tmp_path: Path) -> None:
    (tmp_path / "m.json").write_text(json.dumps(PLAYER))
    os.mkfifo(tmp_path / "pipe.json")
    listed = call_with_timeout("list_machines", {}, tmp_path)
    assert [m["machineId"] for m in listed["machines"]] == ["m.json"]
    assert listed["skipped"] == [{"file": "pipe.json", "code": "invalid_input",
                                  "message": "pipe.json is not a regular file (never opened)"}]
    with pytest.raises(ToolError) as caught:
        call_with_timeout("get_machine", {"machineId": "pipe.json"}, tmp_path)
    assert caught.value.code == "invalid_input"


def test_a_character_device_named_json_is_never_read(tmp_path: Path) -> None:
    """A device node like /dev/zero named `zero.json` was read until MemoryError."""
    import stat

    (tmp_path / "m.json").write_text(json.dumps(PLAYER))
    try:
        os.mknod(tmp_path / "zero.json", stat.S_IFCHR | 0o600, os.makedev(1, 5))  # /dev/zero
    except (PermissionError, AttributeError):
        pytest.skip("creating a device node needs CAP_MKNOD")
    listed = call_with_timeout("list_machines", {}, tmp_path)
    assert [m["machineId"] for m in listed["machines"]] == ["m.json"]
    assert [(s["file"], s["code"]) for s in listed["skipped"]] == [("zero.json", "invalid_input")]
    with pytest.raises(ToolError) as caught:
        call_with_timeout("get_machine", {"machineId": "zero.json"}, tmp_path)
    assert caught.value.code == "invalid_input"


def test_a_symlink_to_a_device_is_refused(tmp_path: Path) -> None:
    os.symlink("/dev/zero", tmp_path / "zero.json")
    assert call_with_timeout("list_machines", {}, tmp_path)["machines"] == []
    with pytest.raises(ToolError) as caught:
        call_with_timeout("get_machine", {"machineId": "zero.json"}, tmp_path)
    assert caught.value.code == "invalid_input"


def test_the_device_check_itself_refuses_a_device_inside_the_root(tmp_path: Path) -> None:
    """With the root at /dev, /dev/zero is inside it: the reader must refuse by file type."""
    from statekit.workspace.files import NotARegularFile, read_regular_file

    if not Path("/dev/zero").exists():
        pytest.skip("needs /dev/zero")
    with pytest.raises(NotARegularFile):
        read_regular_file(Path("/dev/zero"), MAX_FILE_BYTES, root=Path("/dev"))


def test_a_file_over_the_limit_is_reported_too_large(tmp_path: Path) -> None:
    big = dict(PLAYER, description="x" * (2 * 1024 * 1024))
    (tmp_path / "big.json").write_text(json.dumps(big))
    (tmp_path / "m.json").write_text(json.dumps(PLAYER))
    listed = call("list_machines", {}, tmp_path)
    assert [m["machineId"] for m in listed["machines"]] == ["m.json"]
    [entry] = listed["skipped"]
    assert entry["file"] == "big.json" and entry["code"] == "input_too_large"
    assert str(MAX_FILE_BYTES) in entry["message"]
    with pytest.raises(ToolError) as caught:
        call("get_machine", {"machineId": "big.json"}, tmp_path)
    assert caught.value.code == "input_too_large" and str(MAX_FILE_BYTES) in caught.value.message


def test_results_never_name_the_servers_absolute_paths(tmp_path: Path) -> None:
    root = tmp_path / "secret-home" / "ws"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "m.json").write_text(json.dumps(PLAYER))
    (root / "big.json").write_text(" " * (MAX_FILE_BYTES + 1))
    for arguments in ({}, {"directory": "sub"}):
        text = json.dumps(call("list_machines", arguments, root))
        assert str(tmp_path) not in text and "secret-home" not in text
    assert call("list_machines", {}, root)["root"] == "."
    assert call("list_machines", {"directory": "sub"}, root)["root"] == "sub"
    text = json.dumps(call("get_machine", {"machineId": "sub/m.json"}, root))
    assert str(tmp_path) not in text
    for bad in ("big.json", "nope.json", "../x.json"):
        with pytest.raises(ToolError) as caught:
            call("get_machine", {"machineId": bad}, root)
        assert str(tmp_path) not in caught.value.message


def test_gitignore_rules_are_matched_like_git(tmp_path: Path) -> None:
    """Nested .gitignore files, negation, anchoring and info/exclude, without git."""
    files = ["a.json", "keep.json", "drop.json", "sub/a.json", "sub/deep/x.json", "out/x.json",
             "sub/local.json", "excluded.json", "anchored.json", "sub/anchored.json"]
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(json.dumps(PLAYER))
    (tmp_path / ".gitignore").write_text("*.json\n!keep.json\n!sub/\n!sub/**\nout/\n/anchored.json\n")
    (tmp_path / "sub" / ".gitignore").write_text("local.json\ndeep/\n")
    (tmp_path / ".git" / "info").mkdir(parents=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("excluded.json\n")
    listed = {m["machineId"] for m in call("list_machines", {}, tmp_path)["machines"]}
    expected = {"keep.json", "sub/a.json", "sub/anchored.json"}
    assert listed == expected
    if shutil.which("git"):  # git itself agrees (run here by the test, never by statekit)
        subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
        (tmp_path / ".git" / "info" / "exclude").write_text("excluded.json\n")
        shown = subprocess.run(["git", "-C", str(tmp_path), "ls-files", "--others", "--exclude-standard"],
                               capture_output=True, text=True, check=True).stdout.split()
        assert {f for f in shown if f.endswith(".json")} == expected
