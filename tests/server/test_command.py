"""`python -m statekit.server` as a real subprocess: stdio in both eras, HTTP with tokens, usage errors."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from server_demo_tools import DEMO_NAMES

LAUNCHER = Path(__file__).with_name("stdio_demo_server.py")
TOKEN = "cli-token-0123456789abcdef"


def stdio_params(*args: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=[str(LAUNCHER), *args])


@pytest.mark.parametrize(("mode", "version"), [("legacy", "2025-11-25"), ("auto", "2026-07-28")])
async def test_stdio_server_in_both_eras(mode: str, version: str) -> None:
    async with Client(stdio_params(), mode=mode) as client:
        assert client.protocol_version == version
        listed = await client.list_tools()
        ok = await client.call_tool("demo_echo", {"text": "stdio"})
        refused = await client.call_tool("demo_refuse", {"text": "stdio"})
    assert set(DEMO_NAMES) <= {tool.name for tool in listed.tools}
    assert ok.structured_content == {"text": "stdio", "length": 5}
    assert refused.is_error is True and refused.structured_content is not None
    assert refused.structured_content["code"] == "verification_unavailable"


async def test_stdio_allowlist_and_source_limit_flags() -> None:
    async with Client(
        stdio_params("--tools", "demo_echo", "--max-source-bytes", "64"), mode="auto"
    ) as client:
        listed = await client.list_tools()
        small = await client.call_tool("demo_echo", {"text": "small"})
        large = await client.call_tool("demo_echo", {"text": "x" * 100})
    assert [tool.name for tool in listed.tools] == ["demo_echo"]
    assert small.is_error is False
    assert (
        large.structured_content is not None
        and large.structured_content["code"] == "input_too_large"
    )


async def http_subprocess(
    *args: str, env: dict[str, str]
) -> tuple[asyncio.subprocess.Process, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(LAUNCHER),
        "--http",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        *args,
        env={**os.environ, **env},
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stderr is not None
    async with asyncio.timeout(30):
        while True:
            line = (await process.stderr.readline()).decode()
            if not line:
                raise AssertionError("the server exited before listening")
            if "listening on " in line:
                return process, line.rsplit("listening on ", 1)[1].strip()


@pytest.fixture
async def http_server(tmp_path: Path) -> AsyncIterator[str]:
    token_file = tmp_path / "tokens"
    token_file.write_text(f"# accepted tokens\n{TOKEN}\n", encoding="utf-8")
    process, url = await http_subprocess(
        "--token-file", str(token_file), env={"STATEKIT_TOKENS": ""}
    )
    try:
        yield url
    finally:
        process.terminate()
        async with asyncio.timeout(15):
            await process.wait()


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_http_server_subprocess_with_a_token_file(http_server: str, mode: str) -> None:
    assert http_server.startswith("http://127.0.0.1:") and http_server.endswith("/mcp")
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {TOKEN}"})
    async with (
        http,
        Client(streamable_http_client(http_server, http_client=http), mode=mode) as client,
    ):
        result = await client.call_tool("demo_echo", {"text": "http"})
    assert result.structured_content == {"text": "http", "length": 4}


async def test_http_server_subprocess_reads_tokens_from_the_environment() -> None:
    process, url = await http_subprocess(
        env={"STATEKIT_TOKENS": f"first-token-0123456789, {TOKEN}"}
    )
    try:
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {TOKEN}"})
        async with (
            http,
            Client(streamable_http_client(url, http_client=http), mode="auto") as client,
        ):
            listed = await client.list_tools()
        assert "demo_echo" in {tool.name for tool in listed.tools}
    finally:
        process.terminate()
        async with asyncio.timeout(15):
            await process.wait()


def run_command(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(LAUNCHER), *args],
        env={**os.environ, "STATEKIT_TOKENS": "", **(env or {})},
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--http"], "requires a bearer token"),
        (["--http", "--auth", "none", "--host", "0.0.0.0"], "only allowed on a loopback host"),
        (["--http", "--token", "short"], "at least 16"),
        (["--tools", "demo_echo,no_such_tool"], "no_such_tool"),
        (["--http", "--token", TOKEN, "--tools", "no_such_tool"], "no_such_tool"),
        (["--max-source-bytes", "0"], "positive"),
        (["--port", "70000"], "0-65535"),
    ],
)
def test_usage_errors_exit_2_with_a_clear_message(args: list[str], message: str) -> None:
    completed = run_command(*args)
    assert completed.returncode == 2
    assert message in completed.stderr
    assert "Traceback" not in completed.stderr


def test_port_in_use_exits_1(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        completed = run_command("--http", "--auth", "none", "--port", str(port))
    assert completed.returncode == 1
    assert "cannot listen" in completed.stderr


async def test_stdio_serves_a_2025_06_18_client_speaking_raw_json_rpc() -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(LAUNCHER),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    assert process.stdin is not None and process.stdout is not None

    async def send(message: dict[str, object]) -> None:
        assert process.stdin is not None
        process.stdin.write((json.dumps(message) + "\n").encode())
        await process.stdin.drain()

    async def receive() -> dict[str, Any]:
        assert process.stdout is not None
        async with asyncio.timeout(30):
            reply: dict[str, Any] = json.loads(await process.stdout.readline())
        return reply

    try:
        await send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"},
                },
            }
        )
        initialized = await receive()
        assert initialized["result"]["protocolVersion"] == "2025-06-18"
        await send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        await send(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "demo_echo", "arguments": {"text": "raw"}},
            }
        )
        called = await receive()
        assert called["id"] == 2
        assert called["result"]["structuredContent"] == {"text": "raw", "length": 3}
        assert called["result"]["isError"] is False
    finally:
        process.stdin.close()
        async with asyncio.timeout(15):
            await process.wait()
