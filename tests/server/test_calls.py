"""The MCP surface of the tools, through the SDK's real `mcp.Client` connected in-process.

Every test runs in both protocol eras: `legacy` (the 2025-11-25 initialize handshake) and the
2026-07-28 stateless mode.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.server.lowlevel import Server
from server_demo_tools import DEMO_NAMES, SECRET_MARKER
from server_test_support import EventLog

from statekit.server import create_server, register_tools
from statekit.server.catalog import listed_output_schema
from statekit.server.core import CATALOG_CACHE_HINT
from statekit.tools.registry import ToolSpec

ERAS = ["legacy", "2026-07-28"]
TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


def dump(result: types.CallToolResult) -> dict[str, Any]:
    return result.model_dump(by_alias=True, exclude_none=True, mode="json")


@pytest.fixture(params=ERAS)
def era(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def test_lists_every_allowlisted_tool_with_schemas_and_annotations(
    demo_tools: dict[str, ToolSpec], era: str
) -> None:
    async with Client(create_server(tools=DEMO_NAMES), mode=era) as client:
        listed = await client.list_tools()
    assert [tool.name for tool in listed.tools] == sorted(DEMO_NAMES)
    for tool in listed.tools:
        spec = demo_tools[tool.name]
        assert tool.title == spec.title
        assert tool.description == spec.description
        assert tool.input_schema == spec.input_schema
        # The listing carries a summary of the output schema (the complete one is a resource).
        assert tool.output_schema == listed_output_schema(spec.output_schema)
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is True
        # MCP gives destructive and idempotent no meaning for a read-only tool: they are left out.
        assert tool.annotations.destructive_hint is None
        assert tool.annotations.idempotent_hint is None
        assert tool.annotations.open_world_hint is (tool.name == "demo_refuse")


async def test_allowlist_limits_what_is_listed_and_callable(
    demo_tools: dict[str, ToolSpec], era: str
) -> None:
    async with Client(create_server(tools=["demo_echo"]), mode=era) as client:
        listed = await client.list_tools()
        hidden = await client.call_tool("demo_summarized", {"text": "x"})
    assert [tool.name for tool in listed.tools] == ["demo_echo"]
    assert hidden.is_error is True
    assert hidden.structured_content is not None
    assert hidden.structured_content["code"] == "invalid_input"
    assert "known tools: demo_echo" in hidden.structured_content["message"]


def test_allowlist_with_an_unknown_name_is_refused(demo_tools: dict[str, ToolSpec]) -> None:
    with pytest.raises(ValueError, match="no_such_tool"):
        create_server(tools=["demo_echo", "no_such_tool"])
    with pytest.raises(TypeError):
        create_server(tools="demo_echo")


async def test_success_returns_structured_content_and_compact_json_text(
    demo_tools: dict[str, ToolSpec], era: str
) -> None:
    async with Client(create_server(tools=DEMO_NAMES), mode=era) as client:
        result = await client.call_tool("demo_echo", {"text": "ab", "repeat": 2})
    assert result.is_error is False
    assert result.structured_content == {"text": "abab", "length": 4}
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    assert block.text == '{"text":"abab","length":4}'


async def test_summarizer_supplies_the_text_block(
    demo_tools: dict[str, ToolSpec], era: str
) -> None:
    async with Client(create_server(tools=DEMO_NAMES), mode=era) as client:
        result = await client.call_tool("demo_summarized", {"text": "hello"})
    assert result.structured_content == {"text": "hello", "length": 5}
    assert [block.text for block in result.content if isinstance(block, types.TextContent)] == [
        "echoed 5 characters"
    ]


async def test_tool_error_becomes_is_error_result_with_its_code(
    demo_tools: dict[str, ToolSpec], era: str
) -> None:
    async with Client(create_server(tools=DEMO_NAMES), mode=era) as client:
        result = await client.call_tool("demo_refuse", {"text": "x"})
    assert result.is_error is True
    expected = {
        "code": "verification_unavailable",
        "message": "no verification adapter is configured",
        "retryable": False,
    }
    assert result.structured_content == expected
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    # A sentence for the model first, then the structured content as JSON for text-only clients.
    sentence, payload = block.text.split("\n", 1)
    assert sentence == "Error (verification_unavailable): no verification adapter is configured."
    assert json.loads(payload) == expected


async def test_unexpected_exception_is_internal_error_without_traceback_or_content(
    demo_tools: dict[str, ToolSpec], era: str
) -> None:
    async with Client(create_server(tools=DEMO_NAMES), mode=era) as client:
        result = await client.call_tool("demo_crash", {"text": SECRET_MARKER})
    assert result.is_error is True
    assert result.structured_content is not None
    assert result.structured_content["code"] == "internal_error"
    wire = json.dumps(dump(result))
    assert SECRET_MARKER not in wire
    assert "Traceback" not in wire
    assert "boom" not in wire


async def test_result_that_breaks_the_output_schema_is_internal_error(
    demo_tools: dict[str, ToolSpec], era: str
) -> None:
    async with Client(create_server(tools=DEMO_NAMES), mode=era) as client:
        result = await client.call_tool("demo_bad_output", {"text": SECRET_MARKER})
    assert result.is_error is True
    assert result.structured_content is not None
    assert result.structured_content["code"] == "internal_error"
    assert "output schema" in result.structured_content["message"]
    assert SECRET_MARKER not in json.dumps(dump(result))


@pytest.mark.parametrize(
    ("arguments", "pointer", "keyword"),
    [
        ({}, "", "required"),
        ({"text": 7}, "/text", "type"),
        ({"text": "x", "repeat": 9}, "/repeat", "maximum"),
        ({"text": "x", SECRET_MARKER: 1}, "", "additionalProperties"),
    ],
)
async def test_arguments_are_checked_against_the_input_schema_before_the_tool_runs(
    demo_tools: dict[str, ToolSpec], era: str, arguments: dict[str, Any], pointer: str, keyword: str
) -> None:
    async with Client(create_server(tools=["demo_crash"]), mode=era) as client:
        result = await client.call_tool("demo_crash", arguments)
    # demo_crash would answer internal_error had it run; invalid_input proves it never did.
    assert result.is_error is True
    content = result.structured_content
    assert content is not None
    assert content["code"] == "invalid_input"
    assert content["path"] == pointer
    assert content["keyword"] == keyword


async def test_invalid_input_messages_never_echo_values(
    demo_tools: dict[str, ToolSpec], era: str
) -> None:
    async with Client(create_server(tools=["demo_echo"]), mode=era) as client:
        result = await client.call_tool("demo_echo", {"text": {"nested": SECRET_MARKER}})
    assert result.structured_content is not None
    assert result.structured_content["code"] == "invalid_input"
    assert (
        result.structured_content["message"]
        == "invalid arguments for demo_echo: /text: must be of type string"
    )
    assert SECRET_MARKER not in json.dumps(dump(result))


async def test_input_over_the_source_limit_is_refused_before_validation(
    demo_tools: dict[str, ToolSpec], era: str
) -> None:
    # Schema-invalid AND too large: the size check must win, before any parsing or validation.
    arguments = {"text": "é" * 600, "unexpected": True}
    async with Client(
        create_server(tools=["demo_crash"], max_source_bytes=1000), mode=era
    ) as client:
        result = await client.call_tool("demo_crash", arguments)
    content = result.structured_content
    assert content is not None
    assert content["code"] == "input_too_large"
    assert content["limit"] == 1000
    assert content["size"] > 1000


async def test_input_at_the_limit_is_accepted(demo_tools: dict[str, ToolSpec], era: str) -> None:
    text = "a" * 100
    size = len(json.dumps({"text": text}).encode())
    async with Client(
        create_server(tools=["demo_echo"], max_source_bytes=size), mode=era
    ) as client:
        ok = await client.call_tool("demo_echo", {"text": text})
    async with Client(
        create_server(tools=["demo_echo"], max_source_bytes=size - 1), mode=era
    ) as client:
        refused = await client.call_tool("demo_echo", {"text": text})
    assert ok.is_error is False
    assert refused.structured_content is not None
    assert refused.structured_content["code"] == "input_too_large"


async def test_absurdly_nested_input_is_input_too_large(demo_tools: dict[str, ToolSpec]) -> None:
    nested: Any = "leaf"
    for _ in range(50_000):
        nested = [nested]
    # Deeper than the JSON wire accepts, so it is handed in-process straight to the pipeline.
    from statekit.server.calls import ToolCaller

    caller = ToolCaller(catalog={"demo_echo": demo_tools["demo_echo"]}, max_source_bytes=10**9)
    result = await caller.call(demo_tools["demo_echo"], {"text": nested}, None)
    assert result.is_error is True
    assert result.structured_content is not None
    assert result.structured_content["code"] == "input_too_large"


async def test_observer_gets_content_free_events_for_every_outcome(
    demo_tools: dict[str, ToolSpec], era: str, event_log: EventLog
) -> None:
    server = create_server(tools=DEMO_NAMES, on_tool_call=event_log)
    async with Client(server, mode=era) as client:
        await client.call_tool("demo_echo", {"text": SECRET_MARKER})
        await client.call_tool("demo_refuse", {"text": SECRET_MARKER})
        await client.call_tool("demo_crash", {"text": SECRET_MARKER})
        await client.call_tool("demo_bad_output", {"text": SECRET_MARKER})
        await client.call_tool("demo_echo", {"text": 1})
        await client.call_tool("not_a_tool", {"text": SECRET_MARKER})
    events = await event_log.wait_for(5)
    assert [(e["tool"], e["outcome"], e.get("errorCode")) for e in events] == [
        ("demo_echo", "success", None),
        ("demo_refuse", "error", "verification_unavailable"),
        ("demo_crash", "error", "internal_error"),
        ("demo_bad_output", "error", "internal_error"),
        ("demo_echo", "error", "invalid_input"),
    ]
    for event in events:
        assert set(event) <= {"tool", "outcome", "durationMs", "errorCode"}
        assert isinstance(event["durationMs"], float)
        assert event["durationMs"] >= 0
    assert SECRET_MARKER not in json.dumps(events)


async def test_trace_context_reaches_the_observer(
    demo_tools: dict[str, ToolSpec], era: str, event_log: EventLog
) -> None:
    meta: Any = {"traceparent": TRACEPARENT, "tracestate": "vendor=abc", "baggage": "tenant=t1"}
    async with Client(create_server(tools=DEMO_NAMES, on_tool_call=event_log), mode=era) as client:
        await client.call_tool("demo_echo", {"text": "x"}, meta=meta)
        await client.call_tool("demo_refuse", {"text": "x"}, meta={"traceparent": TRACEPARENT})
        await client.call_tool("demo_echo", {"text": "x"})
    first, second, third = await event_log.wait_for(3)
    assert (first["traceparent"], first["tracestate"], first["baggage"]) == (
        TRACEPARENT,
        "vendor=abc",
        "tenant=t1",
    )
    assert second["traceparent"] == TRACEPARENT and second["outcome"] == "error"
    assert "traceparent" not in third


async def test_async_observer_is_not_awaited_and_its_failure_changes_nothing(
    demo_tools: dict[str, ToolSpec], era: str
) -> None:
    import asyncio

    release = asyncio.Event()
    seen: list[dict[str, Any]] = []

    async def slow_failing_observer(event: Any) -> None:
        await release.wait()  # the call must complete while this is still pending
        seen.append(dict(event))
        raise RuntimeError("observer bug")

    async with Client(
        create_server(tools=DEMO_NAMES, on_tool_call=slow_failing_observer), mode=era
    ) as client:
        result = await client.call_tool("demo_echo", {"text": "x"})
        assert result.structured_content == {"text": "x", "length": 1}
        assert seen == []
        release.set()
        async with asyncio.timeout(10):
            while not seen:
                await asyncio.sleep(0.01)
        again = await client.call_tool("demo_echo", {"text": "y"})
    assert seen[0]["tool"] == "demo_echo"
    assert again.structured_content == {"text": "y", "length": 1}


async def test_sync_observer_that_raises_changes_nothing(
    demo_tools: dict[str, ToolSpec], era: str
) -> None:
    calls: list[str] = []

    def broken_observer(event: Any) -> None:
        calls.append(event["tool"])
        raise ValueError("observer bug")

    async with Client(
        create_server(tools=DEMO_NAMES, on_tool_call=broken_observer), mode=era
    ) as client:
        ok = await client.call_tool("demo_echo", {"text": "x"})
        refused = await client.call_tool("demo_refuse", {"text": "x"})
    assert calls == ["demo_echo", "demo_refuse"]
    assert ok.is_error is False
    assert refused.structured_content is not None
    assert refused.structured_content["code"] == "verification_unavailable"


async def test_modern_catalog_is_cacheable_for_five_minutes_and_offers_no_subscriptions(
    demo_tools: dict[str, ToolSpec],
) -> None:
    async with Client(create_server(tools=DEMO_NAMES), mode="auto") as client:
        assert client.protocol_version == "2026-07-28"
        listed = await client.list_tools(cache_mode="bypass")
        discovered = await client.session.discover()
        capabilities = client.server_capabilities
    assert (listed.ttl_ms, listed.cache_scope) == (CATALOG_CACHE_HINT.ttl_ms, "public")
    assert listed.ttl_ms == 300_000
    assert discovered.ttl_ms == 300_000
    assert discovered.supported_versions == ["2026-07-28"]
    assert capabilities.tools is not None
    assert not capabilities.tools.list_changed
    assert capabilities.resources is None or not capabilities.resources.subscribe


async def test_legacy_handshake_advertises_tools_without_list_changed(
    demo_tools: dict[str, ToolSpec],
) -> None:
    async with Client(create_server(tools=DEMO_NAMES), mode="legacy") as client:
        assert client.protocol_version == "2025-11-25"
        capabilities = client.server_capabilities
        info = client.server_info
    assert capabilities.tools is not None
    assert not capabilities.tools.list_changed
    assert info is not None and info.name == "statekit"


async def test_register_tools_keeps_the_servers_own_tools(
    demo_tools: dict[str, ToolSpec], era: str
) -> None:
    own_tool = types.Tool(name="host_ping", input_schema={"type": "object"})

    async def list_own(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[own_tool])

    async def call_own(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=f"pong:{params.name}")]
        )

    host: Server[Any] = Server("host", on_list_tools=list_own, on_call_tool=call_own)
    registration = register_tools(host, tools=["demo_echo"])
    assert registration.tool_names == ("demo_echo",)
    async with Client(host, mode=era) as client:
        listed = await client.list_tools()
        own = await client.call_tool("host_ping", {})
        ours = await client.call_tool("demo_echo", {"text": "x"})
    assert [tool.name for tool in listed.tools] == ["host_ping", "demo_echo"]
    assert isinstance(own.content[0], types.TextContent) and own.content[0].text == "pong:host_ping"
    assert ours.structured_content == {"text": "x", "length": 1}


def test_registration_settings_are_checked(demo_tools: dict[str, ToolSpec]) -> None:
    with pytest.raises(ValueError, match="max_source_bytes"):
        create_server(max_source_bytes=0)
    with pytest.raises(ValueError, match="client_id"):
        create_server(client_id="")
    with pytest.raises(ValueError, match="client_id"):
        create_server(client_id="line\nbreak")
    registration = register_tools(
        Server("x"), tools=["demo_echo"], client_id="statekit/test", max_source_bytes=10
    )
    assert (registration.client_id, registration.max_source_bytes) == ("statekit/test", 10)
