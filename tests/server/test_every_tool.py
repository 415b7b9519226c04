"""Every tool of the spec through the SDK's real client: stdio and HTTP, both protocol eras."""

from __future__ import annotations

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

from statekit.hosted.embedded import EmbeddedRegistry
from statekit.verify.python_adapter import network_isolation_available

ROOT = Path(__file__).resolve().parents[2]
MACHINE = json.loads((ROOT / "examples" / "verify" / "turnstile.json").read_text())
EDITED = {**MACHINE, "states": {**MACHINE["states"], "broken": {"type": "final"}}}
SOURCE = "import { createMachine } from 'xstate';\nexport const m = createMachine(" + json.dumps(MACHINE) + ");\n"
PATCH = [{"op": "createTransition", "sourceId": "turnstile.unlocked", "targetId": "turnstile.locked",
          "eventType": "RESET"}]


def arguments_for(report: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    """Valid arguments for every tool (the report tools need a report from `verify`)."""
    minimal_report = report or {"schemaVersion": "statekit.verification/1", "model": {"kind": "source"},
                                "paths": [], "results": [], "verdict": "inconclusive",
                                "coverage": {"model": {}, "executed": {}}}
    return {
        "validate_machine": {"machine": MACHINE},
        "convert_machine": {"machine": MACHINE, "to": "scxml"},
        "diff_machines": {"before": MACHINE, "after": EDITED, "includePatches": True},
        "apply_machine_patches": {"machine": MACHINE, "patches": PATCH},
        "review_machine_implementation": {"original": MACHINE, "edited": EDITED, "patches": PATCH},
        "generate_graph_paths": {"machine": MACHINE, "algorithm": "shortest"},
        "simulate_machine": {"machine": MACHINE, "events": ["COIN", "PUSH"]},
        "visualize_machine": {"machine": MACHINE},
        "extract_machines_from_code": {"code": SOURCE, "filename": "turnstile.ts"},
        "list_machines": {},
        "get_machine": {"machineId": "turnstile.json"},
        "generate_test_paths": {"report": minimal_report},
        "coverage_report": {"report": minimal_report},
        "list_stately_projects": {},
        "get_stately_project": {"projectId": "demo"},
        "list_stately_project_machines": {"projectId": "demo"},
        "get_stately_machine": {"machineId": "m1"},
        "visualize_stately_machine": {"machineId": "m1"},
        "check_machine_properties": {"machine": MACHINE, "properties": [{"type": "deadlockFree"}]},
    }


#: Tools that change state (live machines); each is called in `test_every_tool_answers` in turn.
LIVE_TOOLS = ("start_machine", "send_events", "get_machine_snapshot", "stop_machine")


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], dict[str, str]]:
    base = tmp_path_factory.mktemp("host")
    workspace = base / "ws"
    workspace.mkdir()
    (workspace / "turnstile.json").write_text(json.dumps(MACHINE))
    registry = EmbeddedRegistry(base / "registry.sqlite")
    registry.add_machine(registry.create_project("Demo", project_id="demo"), "turnstile", MACHINE, machine_id="m1")
    env = {**os.environ, "STATEKIT_REGISTRY": str(registry.path), "STATEKIT_PROVIDER": "embedded"}
    env.pop("STATELY_API_BASE_URL", None)
    args = ["-m", "statekit.server", "--workspace", str(workspace), "--verify-driver", "turnstile=turnstile_driver",
            "--verify-path", str(ROOT / "examples" / "verify")]
    return args, env


@asynccontextmanager
async def connect(transport: str, mode: str, host: tuple[list[str], dict[str, str]]) -> AsyncIterator[Client]:
    args, env = host
    if transport == "stdio":
        async with Client(StdioServerParameters(command=sys.executable, args=args, env=env), mode=mode) as client:
            yield client
        return
    process = subprocess.Popen([sys.executable, *args, "--http", "--auth", "none", "--port", "0"], env=env,
                               stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    url = None
    for _ in range(50):
        match = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", process.stderr.readline())
        if match:
            url = match.group(1)
            break
    try:
        assert url, "the HTTP server did not print its URL"
        http = create_mcp_http_client()
        async with http, Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            yield client
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_every_tool_answers(transport: str, mode: str, host: tuple[list[str], dict[str, str]]) -> None:
    async with connect(transport, mode, host) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        report = None
        if network_isolation_available():
            verified = await client.call_tool("verify", {"model": {"kind": "machine", "machineId": "m1"}})
            assert not verified.is_error, verified.content
            report = verified.structured_content["report"]  # type: ignore[index]
            assert report["verdict"] == "passed"
        calls = arguments_for(report)
        assert set(calls) | {"verify", *LIVE_TOOLS} == set(listed)
        for name, arguments in calls.items():
            result = await client.call_tool(name, arguments)
            assert not result.is_error, (name, result.content)
            assert result.structured_content is not None, name
            assert listed[name].annotations is not None and listed[name].annotations.read_only_hint
        started = await client.call_tool("start_machine", {"machine": MACHINE})
        assert not started.is_error, started.content
        handle = started.structured_content["machineHandle"]  # type: ignore[index]
        for name, arguments in [("send_events", {"machineHandle": handle, "events": ["COIN"]}),
                                ("get_machine_snapshot", {"machineHandle": handle}),
                                ("stop_machine", {"machineHandle": handle})]:
            result = await client.call_tool(name, arguments)
            assert not result.is_error, (name, result.content)
            hints = listed[name].annotations
            assert hints is not None and hints.read_only_hint is (name == "get_machine_snapshot"), name
