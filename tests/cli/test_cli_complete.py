"""The complete command line (issue 24): convert, extract, `call` from stdin or a file, `call NAME
--help`, `--version`, JSON errors that say where, the `serve` banner on a terminal, ignored events
marked by `simulate`, and read-only commands that create no file."""

from __future__ import annotations

import json
import os
import pty
import select
import sqlite3
import subprocess
import sys
import xml.dom.minidom
from pathlib import Path

import pytest

from statekit import tools
from statekit.cli import main
from statekit.verify.python_adapter import network_isolation_available

ROOT = Path(__file__).resolve().parents[2]
PLAYER = ROOT / "examples" / "machines" / "player.json"
SIGNUP = ROOT / "examples" / "machines" / "signup.ts"
CHECKOUT = ROOT / "examples" / "machines" / "checkout.ts"
TINY = {"initial": "a", "states": {"a": {"on": {"GO": "b"}}, "b": {}}}
VERIFY_MACHINE = json.loads((ROOT / "examples" / "verify" / "turnstile.json").read_text())


def cli_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}


def run_cli(*args: str, stdin: str | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "statekit.cli", *args], input=stdin, capture_output=True, text=True,
                          env=cli_env(), cwd=cwd, timeout=120, check=False)


def refused(result: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stderr.startswith("error [invalid_input]: "), result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


# -- --version and call -------------------------------------------------------------------------


def test_version_names_the_installed_version() -> None:
    import statekit

    result = run_cli("--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"statekit {statekit.__version__}"


@pytest.mark.parametrize("form", ["inline", "stdin", "file"])
def test_call_takes_arguments_inline_from_stdin_or_from_a_file(tmp_path: Path, form: str) -> None:
    arguments = {"machine": TINY, "events": ["GO"]}
    text = json.dumps(arguments)
    (tmp_path / "arguments.json").write_text(text)
    given = {"inline": (text, None), "stdin": ("-", text), "file": (f"@{tmp_path / 'arguments.json'}", None)}[form]
    result = run_cli("call", "simulate_machine", given[0], stdin=given[1])
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == tools.call("simulate_machine", arguments)


def test_call_reads_a_typescript_machine_through_a_file(tmp_path: Path) -> None:
    (tmp_path / "arguments.json").write_text(json.dumps({"machine": SIGNUP.read_text(), "to": "scxml"}))
    result = run_cli("call", "convert_machine", f"@{tmp_path / 'arguments.json'}")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["from"] == "xstate-ts"


def test_call_from_a_missing_file_is_refused(tmp_path: Path) -> None:
    refused(run_cli("call", "validate_machine", f"@{tmp_path / 'nope.json'}"), "cannot read")


def test_every_tool_has_a_cli_route_and_its_help_names_its_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    """`statekit call NAME --help` for every registered tool: the route exists and describes each
    argument of the input schema the server lists (required ones marked)."""
    assert len(tools.tools()) >= 20
    for name, spec in tools.tools().items():
        assert main(["call", name, "--help"]) == 0, name
        shown = capsys.readouterr().out
        assert shown.startswith(f"usage: statekit call {name} "), shown
        required = set(spec.input_schema.get("required", ()))
        for argument in spec.input_schema.get("properties", {}):
            mark = "required" if argument in required else "optional"
            assert any(line.lstrip().startswith(f"{argument} (") and f"{mark})" in line
                       for line in _joined_argument_lines(shown)), (name, argument, shown)


def _joined_argument_lines(shown: str) -> list[str]:
    """The help's argument lines, a wrapped one joined back to its start."""
    lines: list[str] = []
    for line in shown.splitlines():
        if line.startswith("      ") and lines and not lines[-1].rstrip().endswith(")"):
            lines[-1] += " " + line.strip()
        else:
            lines.append(line)
    return lines


def test_call_help_in_a_process_shows_the_tools_enum_values() -> None:
    result = run_cli("call", "convert_machine", "--help")
    assert result.returncode == 0, result.stderr
    assert "to (one of" in result.stdout and '"scxml"' in result.stdout and '"d2"' in result.stdout
    plain = run_cli("call", "--help")
    assert plain.returncode == 0 and "@FILE" in plain.stdout


def test_call_without_a_name_is_a_usage_error() -> None:
    result = run_cli("call")
    assert result.returncode == 2 and "usage: statekit call" in result.stderr


# -- JSON errors say where ----------------------------------------------------------------------

BROKEN = '{"machine": {"initial": "a",,\n "states": {}}}'


@pytest.mark.parametrize("where", ["inline", "stdin", "file", "input", "event", "to", "property", "patches",
                                   "machine-file", "workflow"])
def test_every_json_argument_error_names_line_and_column(tmp_path: Path, where: str) -> None:
    broken_file = tmp_path / "broken.json"
    broken_file.write_text(BROKEN)
    machine = str(PLAYER)
    commands: dict[str, tuple[list[str], str | None]] = {
        "inline": (["call", "validate_machine", BROKEN], None),
        "stdin": (["call", "validate_machine", "-"], BROKEN),
        "file": (["call", "validate_machine", f"@{broken_file}"], None),
        "input": (["simulate", machine, "--input", BROKEN], None),
        "event": (["simulate", machine, BROKEN], None),
        "to": (["paths", machine, "--to", BROKEN], None),
        "property": (["check", machine, "--property", BROKEN], None),
        "patches": (["patch", machine, str(broken_file)], None),
        "machine-file": (["validate", str(broken_file)], None),
        "workflow": (["gate", "list", "--store", f"sqlite:{tmp_path / 'x.db'}", "--workflow", str(broken_file)], None),
    }
    argv, stdin = commands[where]
    refused(run_cli(*argv, stdin=stdin), "not valid JSON", "at line 1, column 29")


def test_a_json_machine_file_with_a_trailing_comma_is_refused_not_read_as_yaml(tmp_path: Path) -> None:
    path = tmp_path / "machine.json"
    path.write_text('{"initial": "a",\n "states": {"a": {}},\n}')
    refused(run_cli("validate", str(path)), "not valid JSON", "line 3, column 1")
    yaml_path = tmp_path / "machine.yaml"  # the same text is fine YAML, and read as YAML
    yaml_path.write_text(path.read_text())
    assert run_cli("validate", str(yaml_path)).returncode == 0


# -- convert and extract ------------------------------------------------------------------------


def test_convert_prints_the_converted_machine_and_warns_on_stderr() -> None:
    result = run_cli("convert", str(SIGNUP), "--to", "scxml")
    assert result.returncode == 0, result.stderr
    expected = tools.call("convert_machine", {"machine": SIGNUP.read_text(), "to": "scxml"})
    assert result.stdout.rstrip("\n") == expected["content"].rstrip("\n")
    xml.dom.minidom.parseString(result.stdout)
    assert "warning action_not_expressible" in result.stderr


def test_convert_writes_a_file_and_round_trips_to_json(tmp_path: Path) -> None:
    out = tmp_path / "player.yaml"
    result = run_cli("convert", str(PLAYER), "--to", "xstate-yaml", "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "" and f"wrote {out}" in result.stderr
    back = run_cli("convert", str(out), "--to", "xstate-json")
    assert back.returncode == 0, back.stderr
    assert json.loads(back.stdout) == json.loads(PLAYER.read_text())


def test_convert_to_an_unknown_format_is_refused() -> None:
    refused(run_cli("convert", str(PLAYER), "--to", "bpmn"), "unknown format 'bpmn'")


def test_extract_lists_the_machines_of_a_source_file() -> None:
    result = run_cli("extract", str(CHECKOUT))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Extracted 1 machine(s); 0 error(s).")
    structured = run_cli("extract", str(CHECKOUT), "--json")
    expected = tools.call("extract_machines_from_code", {"code": CHECKOUT.read_text(), "filename": "checkout.ts"})
    assert json.loads(structured.stdout) == expected


def test_extract_exits_1_when_it_finds_no_machine(tmp_path: Path) -> None:
    path = tmp_path / "empty.ts"
    path.write_text("export const x = 1;\n")
    result = run_cli("extract", str(path))
    assert result.returncode == 1 and result.stdout.startswith("Extracted 0 machine(s)")


# -- simulate marks ignored events --------------------------------------------------------------


def test_simulate_marks_an_event_that_changed_nothing_as_ignored() -> None:
    result = run_cli("simulate", str(PLAYER), "NOPE", "PLAY", "NOPE", "PAUSE")
    assert result.returncode == 0, result.stderr
    steps = [line for line in result.stdout.splitlines() if not line.startswith(" ")]
    assert [line.split()[0] for line in steps] == ["xstate.init", "NOPE", "PLAY", "NOPE", "PAUSE"]
    assert steps[1].split()[1:] == ["(ignored)"] and steps[3].split()[1:] == ["(ignored)"]
    assert "->" not in steps[1] and steps[2].split("->")[1].split() == ["playing", "[active]"]
    assert steps[4].split("->")[1].split() == ["paused", "[active]"]


def test_an_event_that_only_runs_an_action_is_not_ignored(tmp_path: Path) -> None:
    path = tmp_path / "ping.json"
    path.write_text(json.dumps({"initial": "a", "states": {"a": {"on": {"PING": {"actions": "log"}}}}}))
    result = run_cli("simulate", str(path), "PING")
    assert "(ignored)" not in result.stdout and "actions: log" in result.stdout


# -- serve says what it serves on a terminal -----------------------------------------------------


def _serve_stdio(stderr_on_terminal: bool) -> tuple[str, list[dict[str, object]]]:
    """`statekit serve` with stderr on a pseudo-terminal (or a pipe): initialize, tools/list, EOF."""
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    master, slave = pty.openpty() if stderr_on_terminal else (None, None)
    process = subprocess.Popen([sys.executable, "-m", "statekit.cli", "serve"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=slave if slave is not None else subprocess.PIPE,
                               env=cli_env(), cwd=ROOT)
    assert process.stdin is not None and process.stdout is not None
    replies = []
    for request in requests:
        process.stdin.write((json.dumps(request) + "\n").encode())
        process.stdin.flush()
        if "id" in request:
            replies.append(json.loads(process.stdout.readline()))
    process.stdin.close()
    assert process.wait(timeout=60) == 0
    if master is None:
        assert process.stderr is not None
        return process.stderr.read().decode(), replies
    assert slave is not None
    os.close(slave)
    chunks = []
    while select.select([master], [], [], 1)[0]:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    return b"".join(chunks).decode(), replies


def test_serve_on_a_terminal_says_what_it_serves_and_how_to_stop() -> None:
    shown, replies = _serve_stdio(stderr_on_terminal=True)
    banner = [line for line in shown.splitlines() if line.startswith("statekit serve:")]
    assert len(banner) == 1, shown
    assert "stdio" in banner[0] and f"({len(tools.tools())} tools)" in banner[0] and "Ctrl-C" in banner[0]
    assert len(replies[1]["result"]["tools"]) == len(tools.tools())  # type: ignore[index]


def test_serve_under_a_client_prints_no_banner() -> None:
    shown, replies = _serve_stdio(stderr_on_terminal=False)
    assert "statekit serve:" not in shown
    assert replies[1]["id"] == 2


# -- read-only commands create no file ----------------------------------------------------------


@pytest.mark.parametrize("action", [["list"], ["inspect", "handle:abc"], ["delete", "handle:abc"],
                                    ["reset", "handle:abc"]])
def test_gate_on_a_mistyped_sqlite_path_refuses_and_creates_nothing(tmp_path: Path, action: list[str]) -> None:
    workflow = tmp_path / "flow.json"
    workflow.write_text(json.dumps({"id": "flow", "initial": "a", "states": {"a": {}}}))
    store = tmp_path / "gaet.db"
    result = run_cli("gate", action[0], "--store", f"sqlite:{store}", "--workflow", str(workflow), *action[1:])
    refused(result, "no SQLite store at", str(store))
    assert sorted(path.name for path in tmp_path.iterdir()) == ["flow.json"]


def test_gate_list_on_another_database_leaves_it_untouched(tmp_path: Path) -> None:
    workflow = tmp_path / "flow.json"
    workflow.write_text(json.dumps({"id": "flow", "initial": "a", "states": {"a": {}}}))
    other = tmp_path / "app.db"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE users (name TEXT)")
    connection.close()
    before = other.read_bytes()
    refused(run_cli("gate", "list", "--store", f"sqlite:{other}", "--workflow", str(workflow)), "not a gate store")
    assert other.read_bytes() == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["app.db", "flow.json"]


@pytest.mark.parametrize("argv", [
    ["validate", "{p}"], ["simulate", "{p}", "PLAY"], ["paths", "{p}"], ["check", "{p}", "--property", "deadlockFree"],
    ["diff", "{p}", "{p}"], ["convert", "{p}", "--to", "scxml"], ["extract", str(SIGNUP)], ["tools"],
    ["call", "validate_machine", "@{p}"], ["call", "list_machines", "{{}}"],
])
def test_read_only_commands_leave_the_directory_as_it_was(tmp_path: Path, argv: list[str]) -> None:
    machine = tmp_path / "player.json"
    machine.write_text(PLAYER.read_text() if argv[0] != "call" or "@" not in argv[-1]
                       else json.dumps({"machine": json.loads(PLAYER.read_text())}))
    result = run_cli(*[part.format(p=machine) for part in argv], cwd=tmp_path)
    assert result.returncode in (0, 1), result.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["player.json"]


def test_live_machine_reads_on_a_mistyped_sqlite_store_create_nothing(tmp_path: Path) -> None:
    """get/send/stop on a store file that does not exist answer not_found and leave no file;
    start_machine makes the store, and a later process finds its machine there."""
    env = {**cli_env(), "STATEKIT_STORE": f"sqlite:///{tmp_path / 'live.db'}"}
    handle = {"machineHandle": "lm_" + "x" * 22}
    for tool, arguments in [("get_machine_snapshot", handle), ("stop_machine", handle),
                            ("send_events", {**handle, "events": ["GO"]})]:
        result = subprocess.run([sys.executable, "-m", "statekit.cli", "call", tool, json.dumps(arguments)],
                                capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120, check=False)
        assert result.returncode == 2 and result.stderr.startswith("error [not_found]: "), result.stderr
        assert list(tmp_path.iterdir()) == [], tool
    started = subprocess.run([sys.executable, "-m", "statekit.cli", "call", "start_machine", json.dumps({"machine": TINY})],
                             capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120, check=True)
    made = json.loads(started.stdout)["machineHandle"]
    sent = subprocess.run([sys.executable, "-m", "statekit.cli", "call", "send_events",
                           json.dumps({"machineHandle": made, "events": ["GO"]})],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120, check=True)
    assert json.loads(sent.stdout)["snapshot"]["value"] == "b"


@pytest.mark.skipif(not network_isolation_available(), reason="verify's driver needs `unshare -rn`")
def test_verify_is_reachable_from_the_command_line_with_the_servers_driver_options() -> None:
    """`statekit call verify` takes `--verify-driver`/`--verify-path` as `statekit serve` does, so every
    tool, verify included, runs from the command line."""
    arguments = json.dumps({"model": {"kind": "source", "content": VERIFY_MACHINE}})
    result = run_cli("call", "verify", arguments, "--verify-driver", "turnstile=turnstile_driver",
                     "--verify-path", str(ROOT / "examples" / "verify"))
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)["report"]
    assert report["schemaVersion"] == "statekit.verification/1" and report["results"], report
    without = run_cli("call", "verify", arguments)
    assert without.returncode == 2 and "error [" in without.stderr, without.stderr
    malformed = run_cli("call", "verify", arguments, "--verify-driver", "turnstile")
    assert malformed.returncode == 2 and "NAME=MODULE" in malformed.stderr
