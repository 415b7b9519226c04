"""Hosted resource tools against hostile or broken stores and upstreams (issue 14).

- errors reach MCP clients in the canonical envelope `{error: {code, message, issues?, retryable?}}`;
- an authenticated HTTP server can forward each caller's own bearer token to the resource API,
  and no token ever appears in the server's log;
- a corrupted registry file is a clear, coded error (not internal_error);
- a stored definition that is not a machine (`[1, 2]`) is refused on read.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from statekit import tools
from statekit.errors import ERROR_CODES, ToolError
from statekit.hosted.embedded import EmbeddedRegistry
from statekit.hosted.http_provider import HttpResourceProvider
from statekit.server import create_server
from statekit.server.access import AccessPolicy, default_allowed_hosts
from statekit.server.http_app import bind_socket, build_http_app, endpoint_url
from statekit.server.http_limits import HttpLimits, uvicorn_config
from statekit.tools.registry import ToolContext

from .conftest import serve

PLAYER = {"id": "player", "initial": "paused", "states": {"paused": {"on": {"PLAY": "playing"}}, "playing": {}}}
ALICE = "alice-token-0123456789abcdef"
BOB = "bob-token-0123456789abcdefgh"
SERVER_WIDE = "server-wide-token-0123456789"
HOSTED = ["list_stately_projects", "get_stately_project", "list_stately_project_machines", "get_stately_machine",
          "visualize_stately_machine"]


def call(name: str, arguments: dict[str, Any], provider: Any) -> dict[str, Any]:
    return tools.call(name, arguments, context=ToolContext(resource_provider=provider))


# -- the canonical error envelope over MCP -----------------------------------------------------


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_hosted_errors_use_the_canonical_envelope(tmp_path: Path, era: str) -> None:
    registry = EmbeddedRegistry(tmp_path / "r.sqlite")
    server = create_server(tools=[*HOSTED, "validate_machine"],
                           context=ToolContext(resource_provider=registry))
    async with Client(server, mode=era) as client:
        missing = await client.call_tool("get_stately_machine", {"machineId": "nope"})
        bad_id = await client.call_tool("get_stately_project", {"projectId": "../etc"})
        machine_tool = await client.call_tool("validate_machine", {})
    for result, code in ((missing, "not_found"), (bad_id, "invalid_input")):
        assert result.is_error is True
        envelope = result.structured_content
        assert envelope is not None and set(envelope) == {"error"}
        assert envelope["error"]["code"] == code and isinstance(envelope["error"]["message"], str)
        assert set(envelope["error"]) <= {"code", "message", "issues", "retryable"}
        sentence, payload = result.content[0].text.split("\n", 1)  # type: ignore[union-attr]
        assert sentence.startswith(f"Error ({code}): ") and json.loads(payload) == envelope
    # Machine tools keep their flat `{code, message}` errors.
    assert machine_tool.structured_content is not None and machine_tool.structured_content["code"] == "invalid_input"


def test_the_envelope_keeps_issues_and_retryable_and_nothing_else() -> None:
    error = ToolError("rate_limited", "Too many requests.", {"status": 429, "issues": [{"path": "/x"}]})
    assert error.to_envelope() == {"error": {"code": "rate_limited", "message": "Too many requests.",
                                             "issues": [{"path": "/x"}], "retryable": True}}
    assert ToolError("not_found", "gone", {"retryable": False}).to_envelope() == {
        "error": {"code": "not_found", "message": "gone", "retryable": False}}


# -- forwarding the caller's own credential ------------------------------------------------------


def _recording_upstream(seen: list[str]) -> Starlette:
    """A resource API that lists one project per caller, named after the token it was sent."""

    async def projects(request: Request) -> Response:
        header = request.headers.get("authorization", "")
        seen.append(header)
        token = header.removeprefix("Bearer ")
        if token not in (ALICE, BOB):
            return JSONResponse({"error": {"code": "unauthenticated", "message": "Missing authentication."}}, 401)
        name = token.split("-")[0]
        return JSONResponse({"projects": [{"projectId": f"proj-{name}", "name": name}]})

    return Starlette(routes=[Route("/api/v1/projects", projects)])


@contextlib.asynccontextmanager
async def statekit_http(provider: Any, *, forward: bool, tokens: tuple[str, ...] = (ALICE, BOB)) -> AsyncIterator[str]:
    import asyncio

    import uvicorn

    server = create_server(tools=HOSTED, context=ToolContext(resource_provider=provider))
    app = build_http_app(server, access=AccessPolicy(tokens), allowed_hosts=default_allowed_hosts("127.0.0.1"),
                         forward_credential=forward)
    sock = bind_socket("127.0.0.1", 0)
    runner = uvicorn.Server(uvicorn_config(app, HttpLimits()))
    task = asyncio.create_task(runner.serve(sockets=[sock]))
    try:
        async with asyncio.timeout(10):
            while not runner.started:
                await asyncio.sleep(0.01)
        yield endpoint_url(sock)
    finally:
        runner.should_exit = True
        async with asyncio.timeout(10):
            await task
        sock.close()


async def list_projects_as(url: str, token: str) -> Any:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    async with http, Client(streamable_http_client(url, http_client=http), mode="2026-07-28") as client:
        return await client.call_tool("list_stately_projects", {})


@pytest.fixture
def upstream() -> Iterator[tuple[str, list[str]]]:
    seen: list[str] = []
    with serve(_recording_upstream(seen)) as base:
        yield f"{base}/api", seen


async def test_each_callers_own_token_is_forwarded_and_never_logged(
    upstream: tuple[str, list[str]], caplog: pytest.LogCaptureFixture
) -> None:
    base, seen = upstream
    caplog.set_level(logging.DEBUG)
    provider = HttpResourceProvider(base, SERVER_WIDE, timeout_ms=5000, forward_caller_credential=True)
    async with statekit_http(provider, forward=True) as url:
        alice = await list_projects_as(url, ALICE)
        bob = await list_projects_as(url, BOB)
    assert alice.structured_content == {"projects": [{"projectId": "proj-alice", "name": "alice"}]}
    assert bob.structured_content == {"projects": [{"projectId": "proj-bob", "name": "bob"}]}
    assert seen == [f"Bearer {ALICE}", f"Bearer {BOB}"]  # never the server-wide credential
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert ALICE not in logged and BOB not in logged and SERVER_WIDE not in logged
    assert ALICE not in repr(provider) and SERVER_WIDE not in repr(provider)


async def test_without_forwarding_the_server_wide_credential_is_used(upstream: tuple[str, list[str]]) -> None:
    base, seen = upstream
    provider = HttpResourceProvider(base, ALICE, timeout_ms=5000)
    async with statekit_http(provider, forward=False) as url:
        result = await list_projects_as(url, BOB)
    assert seen == [f"Bearer {ALICE}"]
    assert result.structured_content == {"projects": [{"projectId": "proj-alice", "name": "alice"}]}


def test_forwarding_without_a_caller_token_is_unauthenticated_never_the_servers() -> None:
    provider = HttpResourceProvider("http://127.0.0.1:9/api", SERVER_WIDE, forward_caller_credential=True)
    with pytest.raises(ToolError) as caught:
        call("list_stately_projects", {}, provider)
    assert caught.value.code == "unauthenticated" and SERVER_WIDE not in caught.value.message


def test_forwarding_needs_bearer_authentication() -> None:
    with pytest.raises(ValueError, match="bearer"):
        build_http_app(create_server(tools=HOSTED), access=AccessPolicy(None),
                       allowed_hosts=default_allowed_hosts("127.0.0.1"), forward_credential=True)


async def test_the_upstream_rejecting_a_forwarded_token_is_unauthenticated_in_the_envelope(
    upstream: tuple[str, list[str]],
) -> None:
    base, seen = upstream
    carol = "carol-token-0123456789abcd"  # accepted by statekit, unknown to the resource API
    provider = HttpResourceProvider(base, None, timeout_ms=5000, forward_caller_credential=True)
    async with statekit_http(provider, forward=True, tokens=(ALICE, carol)) as url:
        refused = await list_projects_as(url, carol)
    assert seen == [f"Bearer {carol}"]
    assert refused.is_error is True and refused.structured_content is not None
    assert refused.structured_content["error"]["code"] == "unauthenticated"
    assert carol not in json.dumps(refused.structured_content)


# -- a corrupted registry, and definitions validated on read ---------------------------------------


@pytest.mark.parametrize("damage", ["garbage", "truncated", "foreign"])
def test_a_corrupted_registry_is_a_clear_coded_error(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "registry.sqlite"
    registry = EmbeddedRegistry(path)
    registry.add_machine(registry.create_project("P", project_id="proj-p"), "m", PLAYER, machine_id="mach-m")
    if damage == "garbage":
        path.write_bytes(b"this is not a database at all" * 100)
    elif damage == "truncated":
        path.write_bytes(path.read_bytes()[:700])
    else:  # another program's database under the same table names
        path.unlink()
        with sqlite3.connect(path) as connection:
            connection.execute("CREATE TABLE projects (x INTEGER)")
            connection.execute("CREATE TABLE machines (y INTEGER)")
    for name, arguments in (("list_stately_projects", {}), ("get_stately_machine", {"machineId": "mach-m"})):
        with pytest.raises(ToolError) as caught:
            call(name, arguments, registry)
        assert caught.value.code == "upstream_error", (damage, caught.value.message)
        assert "registry" in caught.value.message and str(tmp_path) not in caught.value.message
        assert caught.value.to_envelope()["error"]["retryable"] is False


def test_a_stored_definition_that_is_not_json_is_a_coded_error(tmp_path: Path) -> None:
    path = tmp_path / "registry.sqlite"
    registry = EmbeddedRegistry(path)
    registry.add_machine(registry.create_project("P", project_id="proj-p"), "m", PLAYER, machine_id="mach-m")
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE machines SET definition = '{not json' WHERE id = 'mach-m'")
    with pytest.raises(ToolError) as caught:
        call("get_stately_machine", {"machineId": "mach-m"}, registry)
    assert caught.value.code == "upstream_error" and "not JSON" in caught.value.message


@pytest.mark.parametrize(
    "definition",
    [[1, 2], 42, "not a machine at all }{", {"states": [1, 2]}],
    ids=["array", "number", "text", "states-array"],
)
def test_definitions_that_are_not_machines_are_refused_on_read(tmp_path: Path, definition: Any) -> None:
    registry = EmbeddedRegistry(tmp_path / "registry.sqlite")
    registry.add_machine(registry.create_project("P", project_id="proj-p"), "m", definition,  # type: ignore[arg-type]
                         machine_id="mach-m")
    for name in ("get_stately_machine", "visualize_stately_machine"):
        with pytest.raises(ToolError) as caught:
            call(name, {"machineId": "mach-m"}, registry)
        assert caught.value.code == "upstream_error" and "mach-m" in caught.value.message
        assert caught.value.code in ERROR_CODES
        assert caught.value.to_envelope()["error"].get("issues")
