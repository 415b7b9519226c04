"""The real registry tools (validate_machine, simulate_machine, and whatever joins them) served
by `python -m statekit.server` and in-process, through the SDK's `mcp.Client`."""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from server_test_support import EventLog, serving, statekit_stdio_parameters

from statekit.server import create_server
from statekit.server.access import AccessPolicy, default_allowed_hosts
from statekit.server.catalog import listed_output_schema
from statekit.server.http_app import build_http_app
from statekit.tools import registry
from statekit.tools.schema_check import check_schema

PLAYER = {
    "id": "player",
    "initial": "paused",
    "states": {
        "paused": {"on": {"PLAY": "playing"}},
        "playing": {"on": {"PAUSE": "paused", "STOP": "stopped"}},
        "stopped": {"type": "final"},
    },
}
BROKEN = {"id": "broken", "initial": "nowhere", "states": {"a": {}}}
TOKEN = "real-tools-token-0123456789"


def test_every_registered_tool_has_valid_object_schemas() -> None:
    specs = registry.tools()
    assert {"validate_machine", "simulate_machine"} <= set(specs)
    for spec in specs.values():
        check_schema(spec.input_schema)
        check_schema(spec.output_schema)
        assert spec.input_schema.get("type") == "object", spec.name
        assert spec.output_schema.get("type") == "object", spec.name


def statekit_stdio(*args: str) -> StdioServerParameters:
    parameters: StdioServerParameters = statekit_stdio_parameters(*args)
    return parameters


@pytest.mark.parametrize(("mode", "version"), [("legacy", "2025-11-25"), ("auto", "2026-07-28")])
async def test_python_m_statekit_server_over_stdio(mode: str, version: str) -> None:
    async with Client(statekit_stdio(), mode=mode) as client:
        assert client.protocol_version == version
        listed = await client.list_tools()
        valid = await client.call_tool("validate_machine", {"machine": PLAYER})
        invalid = await client.call_tool("validate_machine", {"machine": BROKEN})
        simulated = await client.call_tool(
            "simulate_machine", {"machine": PLAYER, "events": ["PLAY", "STOP"]}
        )
        missing = await client.call_tool("simulate_machine", {"machine": PLAYER})
    names = {tool.name for tool in listed.tools}
    assert {"validate_machine", "simulate_machine"} <= names
    for tool in listed.tools:
        assert tool.annotations is not None
        declared = registry.get(tool.name).annotations
        hints = tool.annotations
        assert (hints.read_only_hint, hints.open_world_hint) == (declared.read_only, declared.open_world)
        if not declared.read_only:  # the hints MCP gives meaning only for a tool that changes things
            assert (hints.destructive_hint, hints.idempotent_hint) == (declared.destructive, declared.idempotent)
        # Every tool reads only, but the live-machine tools, which keep a machine between calls, and
        # verify, which runs the host's system under test.
        changes = tool.name in {"start_machine", "send_events", "stop_machine", "verify"}
        assert hints.read_only_hint is not changes
        assert tool.output_schema == listed_output_schema(registry.get(tool.name).output_schema)
    assert valid.is_error is False and valid.structured_content == {"ok": True, "issues": []}
    assert invalid.is_error is False
    assert invalid.structured_content is not None and invalid.structured_content["ok"] is False
    assert "unknown_initial" in {issue["code"] for issue in invalid.structured_content["issues"]}
    text = invalid.content[0]
    assert isinstance(text, types.TextContent) and text.text.startswith("Machine is invalid")
    assert simulated.structured_content is not None
    assert [step["value"] for step in simulated.structured_content["steps"]] == [
        "paused",
        "playing",
        "stopped",
    ]
    assert missing.is_error is True and missing.structured_content is not None
    assert missing.structured_content["code"] == "invalid_input"
    assert missing.structured_content["path"] == ""


async def test_stdio_allowlist_serves_only_the_named_real_tool() -> None:
    async with Client(statekit_stdio("--tools", "validate_machine"), mode="auto") as client:
        listed = await client.list_tools()
        hidden = await client.call_tool("simulate_machine", {"machine": PLAYER, "events": []})
    assert [tool.name for tool in listed.tools] == ["validate_machine"]
    assert (
        hidden.structured_content is not None
        and hidden.structured_content["code"] == "invalid_input"
    )


async def test_a_machine_over_the_source_limit_is_input_too_large() -> None:
    big = {**PLAYER, "description": "x" * 2048}
    async with Client(statekit_stdio("--max-source-bytes", "1024"), mode="legacy") as client:
        result = await client.call_tool("validate_machine", {"machine": big})
    assert (
        result.structured_content is not None
        and result.structured_content["code"] == "input_too_large"
    )


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_real_tools_over_http_with_observer_and_trace_context(
    event_log: EventLog, mode: str
) -> None:
    traceparent = "00-11111111111111111111111111111111-2222222222222222-01"
    server = create_server(on_tool_call=event_log)
    app = build_http_app(
        server, access=AccessPolicy((TOKEN,)), allowed_hosts=default_allowed_hosts("127.0.0.1")
    )
    async with serving(app) as url:
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {TOKEN}"})
        async with http, Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            source = json.dumps(PLAYER)
            meta: Any = {"traceparent": traceparent}
            from_text = await client.call_tool("validate_machine", {"machine": source}, meta=meta)
            wrong = await client.call_tool("validate_machine", {"machine": 42})
    assert from_text.structured_content == {"ok": True, "issues": []}
    assert (
        wrong.structured_content is not None and wrong.structured_content["code"] == "invalid_input"
    )
    first, second = await event_log.wait_for(2)
    assert first == {
        "tool": "validate_machine",
        "outcome": "success",
        "durationMs": first["durationMs"],
        "traceparent": traceparent,
    }
    assert (second["outcome"], second["errorCode"]) == ("error", "invalid_input")
    assert "player" not in json.dumps([first, second])
