"""Streamable HTTP over a real socket: uvicorn on 127.0.0.1, the SDK's `mcp.Client`, and raw requests."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from server_demo_tools import DEMO_NAMES
from server_test_support import EventLog, serving

from statekit.server import create_server
from statekit.server.access import AccessPolicy, default_allowed_hosts
from statekit.server.core import SERVER_ERROR_CODES
from statekit.server.http_app import build_http_app
from statekit.tools.registry import ToolSpec

TOKEN = "test-token-0123456789abcdef"
OTHER_TOKEN = "other-token-0123456789abcdef"
TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
MODERN = "2026-07-28"


def modern_body(
    method: str, params: dict[str, Any] | None = None, request_id: int = 1
) -> dict[str, Any]:
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw-test", "version": "0"},
    }
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": method,
        "params": {**(params or {}), "_meta": meta},
    }


def modern_headers(
    method: str, name: str | None = None, token: str | None = TOKEN
) -> dict[str, str]:
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": MODERN,
        "mcp-method": method,
    }
    if name is not None:
        headers["mcp-name"] = name
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    return headers


@pytest.fixture
async def endpoint(demo_tools: dict[str, ToolSpec], event_log: EventLog) -> AsyncIterator[str]:
    """A bearer-protected endpoint serving the demo tools, with a small body cap."""
    server = create_server(tools=DEMO_NAMES, max_source_bytes=4096, on_tool_call=event_log)
    app = build_http_app(
        server,
        access=AccessPolicy((TOKEN, OTHER_TOKEN)),
        allowed_hosts=default_allowed_hosts("127.0.0.1"),
        allowed_origins=["https://trusted.example"],
        max_body_bytes=64 * 1024,
    )
    async with serving(app) as url:
        yield url


def authed_client(url: str, mode: str, token: str = TOKEN) -> tuple[httpx2.AsyncClient, Client]:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    return http, Client(streamable_http_client(url, http_client=http), mode=mode)


@pytest.mark.parametrize("mode", ["legacy", "auto", MODERN])
async def test_sdk_client_lists_and_calls_over_http(
    endpoint: str, event_log: EventLog, mode: str
) -> None:
    http, client = authed_client(endpoint, mode)
    async with http, client:
        expected_version = "2025-11-25" if mode == "legacy" else MODERN
        assert client.protocol_version == expected_version
        listed = await client.list_tools()
        ok = await client.call_tool("demo_echo", {"text": "hi"}, meta={"traceparent": TRACEPARENT})
        refused = await client.call_tool("demo_refuse", {"text": "hi"})
        invalid = await client.call_tool("demo_echo", {"text": 5})
    assert [tool.name for tool in listed.tools] == sorted(DEMO_NAMES)
    echo = next(tool for tool in listed.tools if tool.name == "demo_echo")
    assert echo.annotations is not None and echo.annotations.read_only_hint is True
    assert echo.output_schema is not None and set(echo.output_schema["properties"]) == {"text", "length"}
    assert ok.structured_content == {"text": "hi", "length": 2}
    assert refused.is_error is True and refused.structured_content is not None
    assert refused.structured_content["code"] == "verification_unavailable"
    assert (
        invalid.structured_content is not None
        and invalid.structured_content["code"] == "invalid_input"
    )
    events = await event_log.wait_for(3)
    assert events[0]["traceparent"] == TRACEPARENT
    assert [(e["tool"], e["outcome"]) for e in events] == [
        ("demo_echo", "success"),
        ("demo_refuse", "error"),
        ("demo_echo", "error"),
    ]


async def test_second_configured_token_is_accepted(endpoint: str) -> None:
    http, client = authed_client(endpoint, MODERN, token=OTHER_TOKEN)
    async with http, client:
        result = await client.call_tool("demo_echo", {"text": "x"})
    assert result.is_error is False


async def test_legacy_2025_06_18_initialize_over_raw_http(endpoint: str) -> None:
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "old-client", "version": "1"},
        },
    }
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "authorization": f"Bearer {TOKEN}",
    }
    async with httpx2.AsyncClient() as http:
        response = await http.post(endpoint, json=initialize, headers=headers)
        assert response.status_code == 200
        result = response.json()["result"]
        assert result["protocolVersion"] == "2025-06-18"
        assert result["serverInfo"]["name"] == "statekit"
        assert result["capabilities"]["tools"] == {"listChanged": False}
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "demo_echo", "arguments": {"text": "old"}},
        }
        called = await http.post(
            endpoint, json=call, headers={**headers, "mcp-protocol-version": "2025-06-18"}
        )
    assert called.status_code == 200
    assert called.json()["result"]["structuredContent"] == {"text": "old", "length": 3}


async def test_modern_discover_and_catalog_cache_hints_over_raw_http(endpoint: str) -> None:
    async with httpx2.AsyncClient() as http:
        discovered = await http.post(
            endpoint, json=modern_body("server/discover"), headers=modern_headers("server/discover")
        )
        listed = await http.post(
            endpoint, json=modern_body("tools/list"), headers=modern_headers("tools/list")
        )
    assert discovered.status_code == 200
    discover = discovered.json()["result"]
    assert discover["supportedVersions"] == [MODERN]
    assert discover["capabilities"]["tools"] == {"listChanged": False}
    assert "resources" not in discover["capabilities"]
    assert listed.status_code == 200
    catalog = listed.json()["result"]
    assert (catalog["ttlMs"], catalog["cacheScope"]) == (300_000, "public")
    assert "Mcp-Session-Id".lower() not in {key.lower() for key in listed.headers}


async def test_modern_routing_headers_are_checked(endpoint: str) -> None:
    call = modern_body("tools/call", {"name": "demo_echo", "arguments": {"text": "x"}})
    async with httpx2.AsyncClient() as http:
        missing_name = await http.post(endpoint, json=call, headers=modern_headers("tools/call"))
        wrong_name = await http.post(
            endpoint, json=call, headers=modern_headers("tools/call", "demo_refuse")
        )
        wrong_method = await http.post(
            endpoint, json=call, headers=modern_headers("tools/list", "demo_echo")
        )
        right = await http.post(
            endpoint, json=call, headers=modern_headers("tools/call", "demo_echo")
        )
    for refused in (missing_name, wrong_name, wrong_method):
        assert refused.status_code == 400
        assert refused.json()["error"]["code"] == types.HEADER_MISMATCH
    assert right.status_code == 200
    assert right.json()["result"]["structuredContent"] == {"text": "x", "length": 1}


async def test_requests_without_a_valid_bearer_token_are_unauthenticated(endpoint: str) -> None:
    body = modern_body("tools/list")
    async with httpx2.AsyncClient() as http:
        missing = await http.post(
            endpoint, json=body, headers=modern_headers("tools/list", token=None)
        )
        wrong = await http.post(
            endpoint,
            json=body,
            headers=modern_headers("tools/list", token="wrong-token-0123456789"),
        )
        basic = await http.post(
            endpoint,
            json=body,
            headers={**modern_headers("tools/list", token=None), "authorization": f"Basic {TOKEN}"},
        )
        prefix = await http.post(
            endpoint, json=body, headers=modern_headers("tools/list", token=TOKEN[:-1])
        )
    for response in (missing, wrong, basic, prefix):
        assert response.status_code == 401
        assert response.json() == {
            "error": {"code": "unauthenticated", "message": response.json()["error"]["message"]}
        }
        assert response.headers["www-authenticate"].startswith("Bearer")
    assert "invalid_token" in wrong.headers["www-authenticate"]


@pytest.mark.parametrize("mode", ["legacy", MODERN])
async def test_sdk_client_with_a_wrong_token_cannot_connect(endpoint: str, mode: str) -> None:
    http, client = authed_client(endpoint, mode, token="wrong-token-0123456789")
    async with http:
        with pytest.raises(BaseException) as caught:
            async with client:
                await client.list_tools()
    assert any(isinstance(error, MCPError) for error in leaves(caught.value))


def leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]


@pytest.mark.parametrize(
    ("header", "value", "status"),
    [
        ("host", "evil.example:8000", 421),
        ("origin", "http://evil.example", 403),
        ("origin", "null", 403),
        ("origin", "http://127.0.0.1.evil.example:8000", 403),
        # Another local program's page (another port) may not drive this server.
        ("origin", "http://localhost:9999", 403),
        ("origin", "http://127.0.0.1:9999", 403),
        ("origin", "http://127.0.0.1", 403),
    ],
)
async def test_dns_rebinding_host_and_origin_are_refused(
    endpoint: str, header: str, value: str, status: int
) -> None:
    # Checked before authentication: a refused Host/Origin never learns whether a token is valid.
    headers = {**modern_headers("tools/list"), header: value}
    async with httpx2.AsyncClient() as http:
        response = await http.post(endpoint, json=modern_body("tools/list"), headers=headers)
    assert response.status_code == status
    assert response.json()["error"]["code"] == "forbidden"


@pytest.mark.parametrize(
    "origin", ["http://localhost:1234", "http://127.0.0.1:1234", "https://trusted.example"]
)
async def test_loopback_and_configured_origins_are_accepted(endpoint: str, origin: str) -> None:
    headers = {**modern_headers("tools/list"), "origin": origin, "host": "localhost:1234"}
    async with httpx2.AsyncClient() as http:
        response = await http.post(endpoint, json=modern_body("tools/list"), headers=headers)
    assert response.status_code == 200


async def test_oversized_body_is_payload_too_large(endpoint: str) -> None:
    call = modern_body(
        "tools/call", {"name": "demo_echo", "arguments": {"text": "x" * (70 * 1024)}}
    )
    async with httpx2.AsyncClient() as http:
        declared = await http.post(
            endpoint, json=call, headers=modern_headers("tools/call", "demo_echo")
        )

        async def chunks() -> AsyncIterator[bytes]:
            payload = json.dumps(call).encode()
            for start in range(0, len(payload), 8192):
                yield payload[start : start + 8192]

        streamed = await http.post(
            endpoint, content=chunks(), headers=modern_headers("tools/call", "demo_echo")
        )
    for response in (declared, streamed):
        assert response.status_code == 413
        assert response.json()["error"]["code"] == "payload_too_large"


async def test_source_over_the_limit_but_under_the_body_cap_is_input_too_large(
    endpoint: str,
) -> None:
    call = modern_body("tools/call", {"name": "demo_echo", "arguments": {"text": "x" * 5000}})
    async with httpx2.AsyncClient() as http:
        response = await http.post(
            endpoint, json=call, headers=modern_headers("tools/call", "demo_echo")
        )
    assert response.status_code == 200
    result = response.json()["result"]
    assert result["isError"] is True
    assert result["structuredContent"]["code"] == "input_too_large"


async def test_loopback_server_without_auth_serves_without_a_token(
    demo_tools: dict[str, ToolSpec],
) -> None:
    app = build_http_app(
        create_server(tools=["demo_echo"]),
        access=AccessPolicy(None),
        allowed_hosts=default_allowed_hosts("127.0.0.1"),
    )
    async with serving(app) as url, Client(url, mode="auto") as client:
        result = await client.call_tool("demo_echo", {"text": "open"})
    assert result.structured_content == {"text": "open", "length": 4}


async def test_every_error_code_the_server_produces_is_provoked(endpoint: str) -> None:
    """One pass over every code in SERVER_ERROR_CODES, each provoked over real HTTP."""
    provoked: set[str] = set()
    good = modern_headers("tools/call", "demo_echo")

    async def tool_code(name: str, arguments: dict[str, Any]) -> None:
        response = await http.post(
            endpoint,
            json=modern_body("tools/call", {"name": name, "arguments": arguments}),
            headers=modern_headers("tools/call", name),
        )
        provoked.add(response.json()["result"]["structuredContent"]["code"])

    async with httpx2.AsyncClient() as http:
        await tool_code("demo_echo", {"text": 1})  # invalid_input
        await tool_code("demo_echo", {"text": "x" * 5000})  # input_too_large
        await tool_code("demo_crash", {"text": "x"})  # internal_error
        await tool_code("demo_bad_output", {"text": "x"})  # internal_error (output schema)
        body = modern_body("tools/list")
        for headers in (
            modern_headers("tools/list", token=None),  # unauthenticated
            {**modern_headers("tools/list"), "origin": "http://evil.example"},  # forbidden
        ):
            provoked.add(
                (await http.post(endpoint, json=body, headers=headers)).json()["error"]["code"]
            )
        huge = modern_body(
            "tools/call", {"name": "demo_echo", "arguments": {"text": "x" * 100_000}}
        )
        provoked.add(
            (await http.post(endpoint, json=huge, headers=good)).json()["error"]["code"]
        )  # payload_too_large
    assert provoked == SERVER_ERROR_CODES


async def test_a_slow_tool_does_not_stall_other_requests(
    demo_tools: dict[str, ToolSpec], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tools run in worker threads: while one call blocks, the server keeps answering."""
    import asyncio
    import threading

    from statekit.tools import registry

    entered = threading.Event()
    release = threading.Event()

    def blocking(arguments: dict[str, Any]) -> dict[str, Any]:
        entered.set()
        if not release.wait(timeout=30):
            raise TimeoutError("the test never released the tool")
        return {"text": arguments["text"], "length": len(arguments["text"])}

    slow = ToolSpec(
        name="demo_blocking",
        title="Blocks until released",
        description="Waits on an event.",
        input_schema=demo_tools["demo_echo"].input_schema,
        output_schema=demo_tools["demo_echo"].output_schema,
        function=blocking,
    )
    monkeypatch.setitem(registry._REGISTRY, slow.name, slow)
    try:
        app = build_http_app(
            # The blocking tool waits on this test's event, so it runs in server threads.
            create_server(tools=["demo_blocking", "demo_echo"], in_process=True),
            access=AccessPolicy(None),
            allowed_hosts=default_allowed_hosts("127.0.0.1"),
        )
        async with (
            serving(app) as url,
            Client(url, mode=MODERN) as first,
            Client(url, mode=MODERN) as second,
        ):
            pending = asyncio.create_task(first.call_tool("demo_blocking", {"text": "slow"}))
            async with asyncio.timeout(10):
                while not entered.is_set():
                    await asyncio.sleep(0.01)
            quick = await second.call_tool("demo_echo", {"text": "quick"})
            assert not pending.done()
            release.set()
            slow_result = await pending
        assert quick.structured_content == {"text": "quick", "length": 5}
        assert slow_result.structured_content == {"text": "slow", "length": 4}
    finally:
        release.set()
