"""A closed world: while a binding names a tool the server does not serve, no tool call runs.

Issue 22's typo scenarios (`check_balance_default` beside a served `check_balance`, `aprove`
beside `approve`) on FastMCP, `MCPServer` and the low-level `Server`, through fastmcp's
Client, the SDK client (both protocol eras) and a raw JSON-RPC client over stdio that never
lists. On e361e51 the unbound real tool ran its handler in each of them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from closed_world_servers import KINDS, SCENARIOS, answer, build
from mcp import Client
from mcp.shared.exceptions import MCPError

import statekit
from needs import missing
from statekit.gate.errors import LIST_REFUSED_RPC_CODE

try:
    from fastmcp import Client as FastMCPClient
except ImportError:  # pragma: no cover - depends on the environment
    missing("fastmcp", "pip install -e '.[test]'")

HERE = Path(__file__).resolve().parent
#: The statekit under test (the one this process imported), for the stdio subprocess.
SRC = str(Path(statekit.__file__).resolve().parents[1])
MODERN = "2026-07-28"
CLIENTS = ("fastmcp", "sdk-legacy", "sdk-modern")


#: fastmcp's Client connects in process to FastMCP servers only.
KIND_CLIENTS = [
    (kind, client)
    for kind in KINDS
    for client in CLIENTS
    if client != "fastmcp" or kind == "fastmcp"
]


def client_for(server: Any, kind: str, client: str) -> Any:
    if client == "fastmcp":
        return FastMCPClient(server)
    target = server._mcp_server if kind == "fastmcp" else server
    return Client(target, mode="legacy" if client == "sdk-legacy" else MODERN)


def refusal_of(result: Any) -> dict[str, Any]:
    is_error = result.is_error if hasattr(result, "is_error") else result.isError
    assert is_error, result
    payload = result.structured_content
    assert isinstance(payload, dict), result
    return payload


async def call(client: Any, name: str) -> Any:
    if isinstance(client, Client):
        return await client.call_tool(name, {})
    return await client.call_tool(name, {}, raise_on_error=False)


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
@pytest.mark.parametrize(("kind", "client"), KIND_CLIENTS)
@pytest.mark.parametrize("list_first", [False, True])
async def test_a_typo_in_a_binding_runs_no_tool_at_all(
    kind: str, client: str, scenario: str, list_first: bool
) -> None:
    ran: list[str] = []
    server, _ = build(kind, scenario, ran)
    _, served, _, target = SCENARIOS[scenario]
    async with client_for(server, kind, client) as session:
        if list_first:
            with pytest.raises(Exception) as raised:
                await session.list_tools()
            assert "GATE_MISCONFIGURED" in str(raised.value) or "GateConfigError" in str(
                raised.value
            )
        for name in [target, *served]:  # the unbound real tool, then every served one
            payload = refusal_of(await call(session, name))
            assert payload["code"] == "GATE_MISCONFIGURED"
            unmatched = [bound for bound, _, _ in SCENARIOS[scenario][2] if bound not in served]
            assert payload["unmatchedBindings"] == unmatched
            assert unmatched[0] in payload["message"]
    assert ran == []


@pytest.mark.parametrize("kind", KINDS)
async def test_a_listing_names_the_bindings_that_do_not_match(kind: str) -> None:
    server, _ = build(kind, "aprove", [])
    async with client_for(server, kind, "sdk-legacy") as session:
        with pytest.raises(MCPError) as raised:
            await session.list_tools()
    assert raised.value.error.code == LIST_REFUSED_RPC_CODE
    assert "['aprove']" in raised.value.error.message
    assert "approve" in raised.value.error.message


def raw_stdio(kind: str, scenario: str, name: str) -> dict[str, Any]:
    """Initialize, then `tools/call` `name` with no `tools/list` before it; the call's answer."""
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, str(HERE), str(HERE.parent)])}
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": name}},
    ]
    process = subprocess.Popen(
        [sys.executable, str(HERE / "closed_world_servers.py"), kind, scenario],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=environment,
    )
    timer = threading.Timer(120, process.kill)  # a hang fails the test instead of freezing it
    timer.start()
    try:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write("\n".join(json.dumps(message) for message in messages) + "\n")
        process.stdin.flush()
        for line in process.stdout:
            message = json.loads(line)
            if message.get("id") == 2:
                return dict(message)
        raise AssertionError("the server closed without answering the call")
    finally:
        timer.cancel()
        process.kill()
        process.wait()


@pytest.mark.parametrize("kind", KINDS)
def test_a_raw_json_rpc_call_that_never_lists_is_refused(kind: str) -> None:
    answered = raw_stdio(kind, "balance", "check_balance")
    result = answered["result"]
    assert result["isError"] is True
    assert answer("check_balance") not in json.dumps(result)
    assert result["structuredContent"]["code"] == "GATE_MISCONFIGURED"
    assert result["structuredContent"]["unmatchedBindings"] == ["check_balance_default"]


@pytest.mark.parametrize("kind", KINDS)
async def test_matching_bindings_let_unbound_tools_run(kind: str) -> None:
    """The rule closes only a mismatched world: with the typo fixed, the gate gates again."""
    ran: list[str] = []
    server, _ = build(kind, "balance", ran, fix_typos=True)
    async with client_for(server, kind, "sdk-legacy") as session:
        assert not (await session.call_tool("help", {})).is_error  # unbound: ungated
        assert refusal_of(await session.call_tool("check_balance", {}))["code"] == "FORBIDDEN"
        assert not (await session.call_tool("login", {})).is_error
        assert not (await session.call_tool("check_balance", {})).is_error
    assert ran == ["help", "login", "check_balance"]


@pytest.mark.parametrize("kind", KINDS)
async def test_a_decision_that_lets_unbound_names_through_is_caught(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The planted fail-open of issue 22 (an unbound name passes straight through): the typo test sees it."""
    from statekit.gate import decision

    original = decision.admit

    async def fail_open(world: decision.World, name: str, catalog: decision.Catalog) -> Any:
        if name not in world.bound:
            return decision.Allow(bound=False)
        return await original(world, name, catalog)

    monkeypatch.setattr("statekit.gate.pipeline.admit", fail_open)
    with pytest.raises(Exception):  # noqa: B017 - the typo test must fail, however it fails
        await test_a_typo_in_a_binding_runs_no_tool_at_all(kind, "sdk-legacy", "balance", False)
    ran: list[str] = []
    server, _ = build(kind, "balance", ran)
    try:
        async with client_for(server, kind, "sdk-legacy") as session:
            await session.call_tool("check_balance", {})
    except Exception:  # the SDK client re-lists after the call and sees the mismatch
        pass
    assert ran == ["check_balance"]  # the handler ran: what the typo test exists to forbid
