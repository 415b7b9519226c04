"""Every tool of the spec through the SDK's real client: stdio and HTTP, both protocol eras."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from statekit.hosted.embedded import EmbeddedRegistry
from statekit.verify.python_adapter import network_isolation_available
from tool_arguments import MACHINE, ROOT, good_arguments

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
        calls = {name: arguments for name, arguments in good_arguments(report).items()
                 if name not in ("verify", *LIVE_TOOLS)}
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
