"""`statekit canary` against a real `statekit serve --http` (bearer auth on)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator

import pytest

TOKEN = "canary-test-token-0123456789abcdef"


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    env = {**os.environ, "STATEKIT_TOKENS": TOKEN}
    process = subprocess.Popen([sys.executable, "-m", "statekit.server", "--http", "--port", "0"],
                               stderr=subprocess.PIPE, text=True, env=env)
    assert process.stderr is not None
    url = None
    for _ in range(50):
        match = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", process.stderr.readline())
        if match:
            url = match.group(1)
            break
    try:
        assert url
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


def canary(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "statekit.cli", "canary", *args], capture_output=True, text=True,
                          timeout=120, check=False)


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_canary_passes_against_a_healthy_server(server_url: str, mode: str) -> None:
    completed = canary(server_url, "--token", TOKEN, "--mode", mode)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    lines = completed.stdout.splitlines()
    assert {line.split(":")[0] for line in lines} == {
        "ok   tool discovery", "ok   read-only annotations", "ok   stable app URI", "ok   app template",
        "ok   minimal visualization"}
    assert re.search(r"sha256 [0-9a-f]{64}", completed.stdout)


def test_canary_fails_without_the_token(server_url: str) -> None:
    completed = canary(server_url)
    assert completed.returncode == 1
    assert completed.stdout.startswith("FAIL connect")
