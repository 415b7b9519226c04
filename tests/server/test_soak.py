"""A bounded soak test: N clients for T seconds against a real `statekit serve --http`.

The server runs as its own process (so its memory is its own) on loopback; each client makes
real tool calls (validate, simulate, paths, an oversized and a malformed request) in a loop.
Asserted: every answer is the expected one (no 5xx, no dropped connection, no isError on the
good calls), and the server's peak resident memory (VmHWM) stays under a ceiling. No timing
is asserted: a slow machine makes fewer calls, not a failure. `STATEKIT_SOAK_CLIENTS` and
`STATEKIT_SOAK_SECONDS` scale it (defaults 6 clients x 8 s).
"""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path
from typing import Any

import httpx2
import pytest
from server_test_support import start_statekit_http

CLIENTS = int(os.environ.get("STATEKIT_SOAK_CLIENTS", "6"))
SECONDS = float(os.environ.get("STATEKIT_SOAK_SECONDS", "8"))
#: Peak resident memory the server may reach (it starts near 100 MB with the SDK loaded).
MEMORY_CEILING_MB = 600
TOKEN = "soak-token-0123456789abcdef"
PLAYER = {"id": "player", "initial": "paused", "states": {"paused": {"on": {"PLAY": "playing"}},
                                                          "playing": {"on": {"STOP": "paused"}}}}
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream",
           "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "authorization": f"Bearer {TOKEN}"}


def call_body(request_id: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "soak", "version": "0"}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments, "_meta": meta}}


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("validate_machine", {"machine": PLAYER}),
    ("simulate_machine", {"machine": PLAYER, "events": ["PLAY", "STOP"] * 20}),
    ("generate_graph_paths", {"machine": PLAYER, "algorithm": "shortest"}),
    ("convert_machine", {"machine": PLAYER, "to": "scxml"}),
]


def peak_memory_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    match = re.search(r"VmHWM:\s+(\d+) kB", status)
    assert match, "no VmHWM in /proc"
    return int(match.group(1)) / 1024


async def client(url: str, number: int, stop_at: float, outcomes: dict[str, int]) -> None:
    async with httpx2.AsyncClient(timeout=60) as http:
        request_id = 0
        while asyncio.get_running_loop().time() < stop_at:
            request_id += 1
            name, arguments = CALLS[(number + request_id) % len(CALLS)]
            response = await http.post(url, json=call_body(request_id, name, arguments),
                                       headers={**HEADERS, "mcp-name": name})
            assert response.status_code == 200, (name, response.status_code, response.text[:300])
            result = response.json()["result"]
            assert result.get("isError") is not True, (name, result)
            outcomes["ok"] = outcomes.get("ok", 0) + 1
            if request_id % 10 == 0:  # hostile requests in the mix are refused, and do not disturb
                bad = await http.post(url, content=b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"x":NaN}}',
                                      headers={**HEADERS, "mcp-name": name})
                assert bad.status_code == 400 and bad.json()["error"]["code"] == -32700
                outcomes["refused"] = outcomes.get("refused", 0) + 1


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the server's peak memory from /proc")
async def test_many_clients_for_a_while_get_no_errors_within_a_memory_ceiling() -> None:
    server = await start_statekit_http("--max-source-bytes", "65536",
                                       environment={"STATEKIT_TOKENS": TOKEN, "STATEKIT_PROVIDER": "none"})
    process, url = server.process, server.url
    try:
        outcomes: dict[str, int] = {}
        stop_at = asyncio.get_running_loop().time() + SECONDS
        await asyncio.gather(*(client(url, number, stop_at, outcomes) for number in range(CLIENTS)))
        peak = peak_memory_mb(process.pid)
        assert process.returncode is None, "the server died under load"
    finally:
        await server.stop()
    assert outcomes.get("ok", 0) >= CLIENTS  # every client got answers
    print(f"soak: {CLIENTS} clients x {SECONDS:g} s: {outcomes} answered; server peak {peak:.0f} MB")
    assert peak < MEMORY_CEILING_MB, f"the server peaked at {peak:.0f} MB"
