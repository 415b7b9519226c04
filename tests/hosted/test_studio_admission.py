"""`statekit studio` lets in whom the MCP endpoint lets in, decided by the same code.

Attacks of issue 21 on e361e51: a foreign `Host` or `Origin` got 200 and every project (a DNS
rebinding page could read the local registry), and a 3-character `--token` was accepted (the
MCP endpoint requires 16). Each test runs the real `statekit studio` as its own process.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2
import pytest

import statekit
from statekit.hosted.embedded import EmbeddedRegistry
from statekit.server.access import MIN_TOKEN_LENGTH

SRC = str(Path(statekit.__file__).resolve().parents[1])
TOKEN = "studio-token-0123456789abcdef"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    registry = EmbeddedRegistry(tmp_path / "registry.sqlite")
    registry.add_machine(registry.create_project("Secret", project_id="proj-secret"), "door",
                         {"initial": "closed", "states": {"closed": {}}}, machine_id="mach-door")
    return registry.path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def studio(db: Path, *args: str) -> subprocess.Popen[str]:
    environment = {**os.environ, "PYTHONPATH": SRC}
    environment.pop("STATEKIT_TOKENS", None)
    port = str(free_port())
    return subprocess.Popen([sys.executable, "-m", "statekit.cli", "studio", "--db", str(db), "--port", port, *args],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, env=environment)


@contextmanager
def served(db: Path, *args: str) -> Iterator[tuple[str, int]]:
    process = studio(db, *args)
    assert process.stderr is not None
    try:
        line = process.stderr.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/api/v1", line)
        assert found, f"studio did not start: {line}{process.stderr.read() if process.poll() is not None else ''}"
        base, port = found.group(0), int(found.group(1))
        for _ in range(100):  # the address is printed just before the server listens
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        yield base, port
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_a_foreign_host_or_origin_is_refused_as_the_mcp_endpoint_refuses_it(db: Path) -> None:
    with served(db) as (base, port), httpx2.Client(timeout=30) as http:
        assert http.get(f"{base}/projects").json()["projects"][0]["projectId"] == "proj-secret"
        rebound = http.get(f"{base}/projects", headers={"host": f"attacker.example:{port}"})
        assert rebound.status_code == 421, rebound.text
        assert rebound.json()["error"]["code"] == "forbidden"
        foreign = http.get(f"{base}/projects", headers={"origin": "http://attacker.example"})
        assert foreign.status_code == 403, foreign.text
        assert foreign.json()["error"]["code"] == "forbidden"
        other_local = http.get(f"{base}/projects", headers={"origin": "http://localhost:9999"})
        assert other_local.status_code == 403  # another local program's page
        own = http.get(f"{base}/projects", headers={"origin": f"http://localhost:{port}"})
        assert own.status_code == 200


@pytest.mark.parametrize("token", ["abc", "x" * (MIN_TOKEN_LENGTH - 1), "sixteen chars ok"])
def test_a_short_or_unprintable_token_is_refused_at_start(db: Path, token: str) -> None:
    process = studio(db, "--token", token)
    try:
        _, errors = process.communicate(timeout=60)  # e361e51 started serving with it (and never exited)
    finally:
        process.kill()
    assert process.returncode == 2
    assert f"at least {MIN_TOKEN_LENGTH}" in errors, errors


def test_a_token_of_the_endpoints_rules_is_required_on_every_request(db: Path) -> None:
    with served(db, "--token", TOKEN) as (base, _), httpx2.Client(timeout=30) as http:
        refused = http.get(f"{base}/projects")
        assert refused.status_code == 401 and refused.json()["error"]["code"] == "unauthenticated"
        wrong = http.get(f"{base}/projects", headers={"authorization": "Bearer wrong-token-0123456789"})
        assert wrong.status_code == 401
        assert http.get(f"{base}/projects", headers={"authorization": f"Bearer {TOKEN}"}).status_code == 200


def test_beyond_loopback_a_token_is_required(db: Path) -> None:
    process = studio(db, "--host", "0.0.0.0")
    try:
        _, errors = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 2 and "token" in errors, errors
