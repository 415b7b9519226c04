"""Every face runs every tool call through the call supervisor, and the issue's attacks end bounded.

- The server: every registered tool, called through the SDK client, ran in a worker process
  (its function wrapped to note where it ran); host-side tools are exactly the declared ones and
  their engine work runs in a worker. The same probe on an in-process server sees the server's
  own pid, so the probe can fail.
- The real server over stdio and HTTP, with a low `--call-memory`: the SCXML log document that
  logs `'x'.repeat(10000000)` with 100 events, property checks on 20 parallel toggle regions
  with `maxStates: 200000`, and `generate_graph_paths` (simple, and shortest with a limit of a
  million) each end with a coded error or a truncated answer, and the server process's memory
  stays at its baseline (the workers that ran out are replaced).
- The command line (`statekit call` and a friendly command) and the Python API's supervised
  path run in a worker too.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from statekit import cli, tools
from statekit.server.core import create_server
from statekit.tools import registry
from statekit.tools.registry import ToolContext
from statekit.tools.supervisor import Supervisor
from tool_arguments import MACHINE, good_arguments

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "tools"))
import supervisor_tools  # noqa: E402  (the hostile tools live beside the supervisor's own tests)

#: The tools that run in the server process by declaration (`ToolSpec.host_side`): they hold the
#: live-machine store, the resource provider or the verification adapter. Adding one is a decision.
HOST_SIDE = {"start_machine", "send_events", "get_machine_snapshot", "stop_machine", "verify",
             "list_stately_projects", "get_stately_project", "list_stately_project_machines",
             "get_stately_machine", "visualize_stately_machine"}

LOGGING = ('<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" datamodel="ecmascript" initial="a">'
           '<state id="a"><onentry><log expr="\'x\'.repeat(10000000)"/></onentry>'
           '<transition event="e" target="a"/></state></scxml>')


def toggles(regions: int = 20) -> dict[str, Any]:
    """The report's machine: `regions` parallel regions, each `a <-> b` on its own event."""
    return {"id": "toggles", "type": "parallel", "states": {
        f"r{index}": {"initial": "a", "states": {"a": {"on": {f"T{index}": "b"}}, "b": {"on": {f"T{index}": "a"}}}}
        for index in range(regions)}}


ATTACKS: list[tuple[str, dict[str, Any]]] = [
    ("simulate_machine", {"machine": LOGGING, "events": ["e"] * 100}),
    ("check_machine_properties", {"machine": toggles(), "properties": [{"type": "deadlockFree"}], "maxStates": 200000}),
    ("generate_graph_paths", {"machine": toggles(), "algorithm": "simple"}),
    ("generate_graph_paths", {"machine": toggles(), "algorithm": "shortest", "limit": 1000000}),
]
BOUNDED_CODES = {"resource_exhausted", "deadline_exceeded", "output_too_large"}


# -- every tool through the server runs in a worker -------------------------------------------------


def _probe_every_tool(monkeypatch: pytest.MonkeyPatch, log: Path) -> None:
    for name, spec in registry.tools().items():
        recorder = supervisor_tools.PidRecorder(name, spec.function, spec.takes_context, str(log))
        monkeypatch.setitem(registry._REGISTRY, name, dataclasses.replace(spec, function=recorder))


def _where(log: Path) -> dict[str, set[int]]:
    ran: dict[str, set[int]] = {}
    for line in log.read_text().splitlines():
        name, pid = line.split()
        ran.setdefault(name, set()).add(int(pid))
    return ran


async def _call_every_tool(server: Any) -> None:
    async with Client(server, mode="2026-07-28") as client:
        for name, arguments in good_arguments().items():
            await client.call_tool(name, arguments)  # answers or coded errors: where it ran is the point


async def test_every_tool_called_through_the_server_runs_in_a_worker(monkeypatch: pytest.MonkeyPatch,
                                                                    tmp_path: Path) -> None:
    log = tmp_path / "ran"
    _probe_every_tool(monkeypatch, log)
    supervisor = Supervisor(workers=2)
    try:
        context = ToolContext(workspace_root=str(tmp_path), call_seconds=60.0)
        await _call_every_tool(create_server(context=context, supervisor=supervisor))
        ran = _where(log)
        assert set(ran) == set(registry.TOOL_MODULES), "some tool was never called"
        host_side = {name for name, spec in registry.tools().items() if spec.host_side}
        assert host_side == HOST_SIDE
        for name, pids in ran.items():
            if name in HOST_SIDE:
                assert pids == {os.getpid()}, name
            else:
                assert os.getpid() not in pids, f"{name} ran in the server process"
        assert supervisor.counts["functions"] >= 1  # start_machine's engine work went to a worker
    finally:
        supervisor.close()


async def test_the_probe_sees_an_in_process_server_run_tools_in_the_server(monkeypatch: pytest.MonkeyPatch,
                                                                          tmp_path: Path) -> None:
    """The forgetting planted: a server that bypasses the supervisor is caught by the same probe."""
    log = tmp_path / "ran"
    _probe_every_tool(monkeypatch, log)
    await _call_every_tool(create_server(context=ToolContext(workspace_root=str(tmp_path)), in_process=True))
    assert all(pids == {os.getpid()} for pids in _where(log).values())


async def test_live_machine_work_runs_in_a_worker_and_the_store_stays_in_the_server() -> None:
    supervisor = Supervisor(workers=1)
    try:
        async with Client(create_server(context=ToolContext(), supervisor=supervisor), mode="legacy") as client:
            started = await client.call_tool("start_machine", {"machine": MACHINE})
            handle = (started.structured_content or {})["machineHandle"]
            sent = await client.call_tool("send_events", {"machineHandle": handle, "events": ["COIN"]})
            read = await client.call_tool("get_machine_snapshot", {"machineHandle": handle})
        assert not sent.is_error and not read.is_error
        assert (read.structured_content or {})["snapshot"]["value"] == (sent.structured_content or {})["snapshot"]["value"]
        assert supervisor.counts["functions"] == 3  # start, send, read: each one's engine work in a worker
    finally:
        supervisor.close()


# -- the attacks on the real server, stdio and HTTP -----------------------------------------


def _server_args(*extra: str) -> list[str]:
    return ["-m", "statekit.server", "--call-memory", "48M", "--call-timeout", "15", "--workers", "1", *extra]


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "STATEKIT_PROVIDER": "none"}
    for name in ("STATEKIT_CALL_TIMEOUT", "STATEKIT_MAX_OUTPUT_BYTES", "STATEKIT_CALL_MEMORY", "STATEKIT_WORKERS"):
        env.pop(name, None)
    return env


def _children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid and b"statekit.server" in cmdline:
                found.append(int(entry.name))
    return found


def _tree_rss_mb(pid: int) -> float:
    """The resident memory of `pid` and every process below it (the fork server, the workers)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    tree, grown = {pid}, True
    while grown:
        below = {child for child, parent in parents.items() if parent in tree} - tree
        grown = bool(below)
        tree |= below
    total = 0.0
    for member in tree:
        try:
            total += _status_mb(member, "VmRSS")
        except (OSError, AssertionError):
            continue  # gone meanwhile
    return total


def _status_mb(pid: int, field: str) -> float:
    match = re.search(rf"{field}:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
    assert match, field
    return int(match.group(1)) / 1024


@asynccontextmanager
async def served(transport: str) -> AsyncIterator[tuple[Client, int]]:
    if transport == "stdio":
        parameters = StdioServerParameters(command=sys.executable, args=_server_args(), env=_env())
        async with Client(parameters, mode="2026-07-28") as client:
            (pid,) = _children_of(os.getpid())
            yield client, pid
        return
    process = subprocess.Popen([sys.executable, *_server_args("--http", "--auth", "none", "--port", "0")],
                               env=_env(), stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    try:
        url = None
        for _ in range(50):
            match = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", process.stderr.readline())
            if match:
                url = match.group(1)
                break
        assert url, "the HTTP server did not print its URL"
        http = create_mcp_http_client()
        async with http, Client(streamable_http_client(url, http_client=http), mode="2026-07-28") as client:
            yield client, process.pid
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_the_attacks_end_coded_or_truncated_and_the_server_keeps_its_memory(transport: str) -> None:
    async with served(transport) as (client, pid):
        warm = await client.call_tool("validate_machine", {"machine": toggles()})
        assert not warm.is_error
        baseline = _status_mb(pid, "VmRSS")
        tree_baseline = _tree_rss_mb(pid)
        outcomes = []
        for name, arguments in ATTACKS:
            result = await client.call_tool(name, arguments)
            content = result.structured_content or {}
            outcome = content.get("code") if result.is_error else content.get("truncatedReason")
            if name == "check_machine_properties" and not result.is_error:
                outcome = "truncated" if content["execution"].get("truncated") else None
            outcomes.append((name, outcome))
            assert outcome is not None, f"{name} answered in full: {json.dumps(content)[:200]}"
            assert not result.is_error or outcome in BOUNDED_CODES, (name, content)
        print(f"{transport}: {outcomes}; server {baseline:.0f} MB -> peak {_status_mb(pid, 'VmHWM'):.0f} MB")
        # The allocations happened in workers: the server process never grew.
        assert _status_mb(pid, "VmHWM") - baseline < 64
        # A memory attack answers resource_exhausted, never internal_error.
        assert ("simulate_machine", "resource_exhausted") in outcomes
        after = await client.call_tool("validate_machine", {"machine": toggles()})
        assert not after.is_error, "the server did not recover a worker"
        # The workers that ran out were replaced: the server with its workers is back near its baseline.
        tree_after = _tree_rss_mb(pid)
        print(f"server and workers: {tree_baseline:.0f} MB -> {tree_after:.0f} MB")
        assert tree_after - tree_baseline < 64


# -- the command line and the Python API ----------------------------------------------------------


def test_the_command_line_runs_its_call_in_a_worker(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    registry.tools()
    monkeypatch.setitem(registry._REGISTRY, supervisor_tools.PID.name, supervisor_tools.PID)
    assert cli.main(["call", supervisor_tools.PID.name, "{}"]) == 0
    assert json.loads(capsys.readouterr().out)["pid"] != os.getpid()


@pytest.mark.parametrize("command", [["call", "simulate_machine"], ["--call-memory", "48M", "simulate"]])
def test_a_memory_attack_through_the_command_line_answers_resource_exhausted(command: list[str],
                                                                              tmp_path: Path) -> None:
    document = tmp_path / "log.scxml"
    document.write_text(LOGGING)
    args = ([*command, json.dumps({"machine": LOGGING, "events": ["e"] * 100})] if command[0] == "call"
            else [*command, str(document), *(["e"] * 100)])
    env = {**_env(), "STATEKIT_CALL_MEMORY": "48M"} if command[0] == "call" else _env()
    completed = subprocess.run([sys.executable, "-m", "statekit.cli", *args], env=env, capture_output=True,
                               text=True, timeout=120)
    assert completed.returncode == 2, completed.stdout[:500]
    assert "error [resource_exhausted]" in completed.stderr, completed.stderr[-2000:]
    assert "Traceback" not in completed.stderr


def test_the_python_api_runs_in_process_by_default_and_supervised_on_request() -> None:
    registry.tools()
    spec = supervisor_tools.PID
    registry._REGISTRY[spec.name] = spec
    try:
        assert tools.call(spec.name, {})["pid"] == os.getpid()
        assert tools.call(spec.name, {}, supervised=True)["pid"] != os.getpid()
        with Supervisor(workers=1) as supervisor:
            assert supervisor.call(spec.name, {})["pid"] in supervisor.worker_pids()
    finally:
        del registry._REGISTRY[spec.name]


async def test_a_client_that_cancels_kills_the_work_in_its_worker(monkeypatch: pytest.MonkeyPatch,
                                                                  tmp_path: Path) -> None:
    """MCP cancellation (the SDK sends notifications/cancelled when the caller gives up) reaches
    the worker: the spinning call's process is gone, though the call had no deadline."""
    import anyio

    registry.tools()
    monkeypatch.setitem(registry._REGISTRY, supervisor_tools.SPIN.name, supervisor_tools.SPIN)
    pid_file = tmp_path / "pid"
    supervisor = Supervisor(workers=1)
    try:
        server = create_server(tools=[supervisor_tools.SPIN.name], context=ToolContext(call_seconds=None),
                               supervisor=supervisor)
        async with Client(server, mode="legacy") as client:
            async with anyio.create_task_group() as group:
                group.start_soon(client.call_tool, supervisor_tools.SPIN.name, {"pidFile": str(pid_file)})
                with anyio.fail_after(60):
                    while not (pid_file.exists() and pid_file.read_text()):
                        await anyio.sleep(0.05)
                group.cancel_scope.cancel()
            worker = int(pid_file.read_text())
            with anyio.fail_after(30):
                while Path(f"/proc/{worker}").exists() and "Z" not in _state(worker):
                    await anyio.sleep(0.05)
            assert worker not in supervisor.worker_pids()
    finally:
        supervisor.close()


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "Z"
