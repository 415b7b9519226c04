"""The `statekit` command, run as a real process: call, tools, validate, simulate."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from statekit import tools

ROOT = Path(__file__).resolve().parents[2]
PLAYER = ROOT / "examples" / "machines" / "player.json"

GUARDED: dict[str, Any] = {
    "id": "door",
    "initial": "closed",
    "context": {"n": 0},
    "states": {
        "closed": {"on": {"OPEN": [{"target": "open", "guard": "isUnlocked"}, {"target": "refused"}]}},
        "open": {"on": {"SET": {"actions": {"type": "xstate.assign", "assignment": {"n": 1}}}}},
        "refused": {"type": "final"},
    },
}


def run_cli(*args: str, stdin: str | None = None, entry: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    command = entry if entry is not None else [sys.executable, "-m", "statekit.cli"]
    return subprocess.run(
        [*command, *args], input=stdin, capture_output=True, text=True, env=env, cwd=ROOT, timeout=120, check=False
    )


def assert_no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stderr and 'File "' not in result.stderr
    assert "Traceback" not in result.stdout


@pytest.fixture
def guarded_file(tmp_path: Path) -> Path:
    path = tmp_path / "door.json"
    path.write_text(json.dumps(GUARDED))
    return path


# -- tools and call ---------------------------------------------------------------------------


def test_tools_lists_every_registered_tool() -> None:
    result = run_cli("tools")
    assert result.returncode == 0, result.stderr
    listed = [line.split()[0] for line in result.stdout.splitlines() if line.strip()]
    assert listed == sorted(tools.tools())
    for name, spec in tools.tools().items():
        assert any(line.startswith(name) and spec.title in line for line in result.stdout.splitlines())


def test_call_prints_the_structured_result() -> None:
    arguments = {"machine": json.loads(PLAYER.read_text()), "events": ["PLAY"]}
    result = run_cli("call", "simulate_machine", json.dumps(arguments))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == tools.call("simulate_machine", arguments)


def test_call_validate_with_implementations() -> None:
    arguments = {"machine": PLAYER.read_text(), "implementations": {"actions": ["startAudio", "stopAudio"]}}
    result = run_cli("call", "validate_machine", json.dumps(arguments))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"ok": True, "issues": []}


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["call", "no_such_tool"], "unknown tool"),
        (["call", "validate_machine", "{not json"], "not valid JSON"),
        (["call", "validate_machine", "[1, 2]"], "JSON object"),
        (["call", "validate_machine", "{}"], "`machine` is required"),
        (["call", "simulate_machine", json.dumps({"machine": {"initial": "a", "states": {"a": {}}}, "events": "x"})], "events"),
    ],
)
def test_call_failures_exit_2_with_the_error_code(args: list[str], fragment: str) -> None:
    result = run_cli(*args)
    assert result.returncode == 2
    assert result.stderr.startswith("error [invalid_input]: ")
    assert fragment in result.stderr
    assert result.stdout == ""
    assert_no_traceback(result)


# -- validate ---------------------------------------------------------------------------------


def test_validate_a_valid_file_exits_0() -> None:
    result = run_cli("validate", str(PLAYER))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Machine is valid: 0 error(s), 2 warning(s).")
    assert "action_not_implemented at states.playing.entry[0]" in result.stdout


def test_validate_an_invalid_file_exits_1(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"initial": "a", "states": {"a": {"on": {"GO": "nowhere"}}}}))
    result = run_cli("validate", str(path))
    assert result.returncode == 1
    assert result.stdout.startswith("Machine is invalid: 1 error(s)")
    assert "unknown_target at states.a.on.GO[0]" in result.stdout


def test_validate_a_badly_shaped_config_exits_1(tmp_path: Path) -> None:
    path = tmp_path / "shape.json"
    path.write_text(json.dumps({"initial": "a", "states": {"a": {"entry": 5}}}))
    result = run_cli("validate", str(path), "--json")
    assert result.returncode == 1
    assert json.loads(result.stdout)["issues"][0]["code"] == "invalid_config"


def test_validate_json_output_equals_the_tool_result(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("initial: a\nstates:\n  a: {always: b}\n  b: {always: a}\n")
    result = run_cli("validate", str(path), "--json")
    assert result.returncode == 1
    assert json.loads(result.stdout) == tools.call("validate_machine", {"machine": path.read_text()})


def test_validate_reads_stdin() -> None:
    result = run_cli("validate", "-", "--json", stdin=PLAYER.read_text())
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["ok"] is True


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (None, "cannot read"),
        ("{\"initial\": ", "invalid JSON"),
        ("states: [", "not valid JSON or YAML"),
        ("", "empty"),
        ("[1, 2]", "machine config object"),
        ("a: &x 1\nb: *x\n", "aliases"),
    ],
)
def test_validate_a_bad_file_exits_2(tmp_path: Path, content: str | None, fragment: str) -> None:
    path = tmp_path / "machine.txt"
    if content is not None:
        path.write_text(content)
    result = run_cli("validate", str(path))
    assert result.returncode == 2
    assert result.stderr.startswith("error [invalid_input]: ")
    assert fragment in result.stderr
    assert_no_traceback(result)


def test_validate_a_file_that_is_not_utf8_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"id": "caf\xe9"}')
    result = run_cli("validate", str(path))
    assert result.returncode == 2
    assert "UTF-8" in result.stderr
    assert_no_traceback(result)


def test_validate_a_directory_exits_2(tmp_path: Path) -> None:
    result = run_cli("validate", str(tmp_path))
    assert result.returncode == 2
    assert_no_traceback(result)


# -- simulate ---------------------------------------------------------------------------------


def test_simulate_prints_each_step() -> None:
    result = run_cli("simulate", str(PLAYER), "PLAY", '{"type": "PAUSE"}', "STOP")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    step_lines = [line for line in lines if not line.startswith(" ")]
    assert [line.split()[0] for line in step_lines] == ["xstate.init", "PLAY", "PAUSE", "STOP"]
    assert step_lines[1].split("->")[1].split() == ["playing", "[active]"]
    assert step_lines[3].split()[1:] == ["(ignored)"]  # STOP is handled in playing, not paused
    assert "actions: startAudio, xstate.raise" in result.stdout
    assert 'context: {"plays": 0, "lastCommand": "PLAY"}' in result.stdout


def test_simulate_json_equals_the_tool_result() -> None:
    result = run_cli("simulate", str(PLAYER), "PLAY", '{"type": "PAUSE", "why": "phone"}', "--json")
    assert result.returncode == 0, result.stderr
    expected = tools.call(
        "simulate_machine", {"machine": PLAYER.read_text(), "events": ["PLAY", {"type": "PAUSE", "why": "phone"}]}
    )
    assert json.loads(result.stdout) == expected


def test_simulate_guard_flags(guarded_file: Path) -> None:
    assumed = run_cli("simulate", str(guarded_file), "OPEN", "--json")
    assert json.loads(assumed.stdout)["steps"][-1]["value"] == "open"
    assert json.loads(assumed.stdout)["normalization"]["assumedGuards"] == ["isUnlocked"]
    locked = run_cli("simulate", str(guarded_file), "OPEN", "--guard", "isUnlocked=false", "--json")
    data = json.loads(locked.stdout)
    assert data["steps"][-1]["value"] == "refused" and data["steps"][-1]["status"] == "done"
    assert data["normalization"]["assumedGuards"] == []
    text = run_cli("simulate", str(guarded_file), "OPEN")
    assert "assumed true: isUnlocked" in text.stdout
    explicit = run_cli("simulate", str(guarded_file), "OPEN", "--guard", "isUnlocked=true")
    assert "assumed true" not in explicit.stdout


@pytest.mark.parametrize("flag", ["isUnlocked", "isUnlocked=yes", "isUnlocked=TRUE", "isUnlocked=1"])
def test_simulate_bad_guard_flag_exits_2(guarded_file: Path, flag: str) -> None:
    result = run_cli("simulate", str(guarded_file), "OPEN", "--guard", flag)
    assert result.returncode == 2
    assert "--guard" in result.stderr or "guard" in result.stderr
    assert_no_traceback(result)


def test_simulate_with_input(guarded_file: Path) -> None:
    result = run_cli("simulate", str(guarded_file), "--input", '{"user": "ann"}', "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["steps"][0]["status"] == "active"


def test_simulate_bad_input_json_exits_2(guarded_file: Path) -> None:
    result = run_cli("simulate", str(guarded_file), "--input", "{bad")
    assert_no_traceback(result)
    assert result.returncode == 2


@pytest.mark.parametrize("event", ['{"type": ', '{"kind": "X"}', '{"type": ""}'])
def test_simulate_bad_event_exits_2(guarded_file: Path, event: str) -> None:
    result = run_cli("simulate", str(guarded_file), event)
    assert result.returncode == 2
    assert result.stderr.startswith("error [invalid_input]: ")
    assert_no_traceback(result)


def test_simulate_machine_that_throws_reports_the_error_step(tmp_path: Path) -> None:
    path = tmp_path / "throws.json"
    path.write_text(json.dumps({"initial": "a", "states": {"a": {"on": {"BOOM": {"actions": {
        "type": "xstate.sendTo", "to": "ghost", "event": {"type": "X"}}}}}}}))
    result = run_cli("simulate", str(path), "BOOM", "BOOM")
    assert result.returncode == 0, result.stderr
    assert "[error]" in result.stdout and "error: " in result.stdout and "ghost" in result.stdout


def test_simulate_an_unrunnable_machine_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "unrunnable.json"
    path.write_text(json.dumps({"states": {"a": {}, "b": {}}}))
    result = run_cli("simulate", str(path), "GO")
    assert result.returncode == 2
    assert result.stderr.startswith("error [invalid_input]: the machine cannot run")
    assert_no_traceback(result)


# -- argument errors and the console script ---------------------------------------------------


@pytest.mark.parametrize("args", [[], ["bogus"], ["validate"], ["simulate"]])
def test_usage_errors_exit_2(args: list[str]) -> None:
    result = run_cli(*args)
    assert result.returncode == 2
    assert "usage: statekit" in result.stderr
    assert_no_traceback(result)


@pytest.mark.needs(shutil.which("statekit"), "the statekit console script", "pip install -e '.[server]'")
def test_console_script_entry_point() -> None:
    script = shutil.which("statekit")
    assert script is not None
    listing = run_cli("tools", entry=[script])
    assert listing.returncode == 0, listing.stderr
    assert "validate_machine" in listing.stdout
    validate = run_cli("validate", str(PLAYER), "--json", entry=[script])
    assert validate.returncode == 0 and json.loads(validate.stdout)["ok"] is True


def test_paths_max_paths_raises_the_cap(tmp_path: Path) -> None:
    path = tmp_path / "chain.json"
    states = {f"s{i}": {"on": {"NEXT": f"s{i + 1}"}} for i in range(7)} | {"s7": {}}
    path.write_text(json.dumps({"id": "chain", "initial": "s0", "states": states}))
    result = run_cli("paths", str(path), "--max-paths", "8", "--json")
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert len(answer["paths"]) == 8 and answer["truncated"] is False
    assert len(json.loads(run_cli("paths", str(path), "--json").stdout)["paths"]) == 5
