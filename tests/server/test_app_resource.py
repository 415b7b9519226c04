"""visualize_machine over MCP: native image content, the ui:// app resource, the extension."""

from __future__ import annotations

import base64
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from statekit.render import find_engine
from statekit.render.app import APP_URI
from statekit.server import create_server
from statekit.server.app_resource import APP_MIME_TYPE, EXTENSION_ID
from statekit.tools import registry
from statekit.tools.references import TOOL_SCHEMAS_URI
from statekit.tools.registry import ToolSpec

PLAYER = {
    "id": "player",
    "initial": "paused",
    "states": {
        "paused": {"on": {"PLAY": "playing"}},
        "playing": {"initial": "a", "states": {"a": {"on": {"N": "b"}}, "b": {}}, "on": {"STOP": "done"}},
        "done": {"type": "final"},
    },
}


def _blocks_tool(blocks: list[dict[str, Any]]) -> ToolSpec:
    return ToolSpec(
        name="demo_blocks",
        title="demo",
        description="returns content blocks under its content key",
        input_schema={"type": "object"},
        output_schema={"type": "object", "properties": {"n": {"type": "integer"}},
                       "required": ["n"], "additionalProperties": False},
        function=lambda _args: {"n": len(blocks), "_blocks": [dict(b) for b in blocks]},
        content_key="_blocks",
    )


@pytest.mark.needs(find_engine(), "a layout engine (graphviz-pure or dot)", "pip install -e '.[render]'")
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_images_become_native_content_blocks(mode: str) -> None:
    async with Client(create_server(tools=["visualize_machine"]), mode=mode) as client:
        result = await client.call_tool("visualize_machine", {"machine": PLAYER})
    assert result.is_error is False
    assert result.structured_content is not None
    assert "_images" not in result.structured_content
    images = result.structured_content["pngFallback"]["images"]
    assert [image["parentNodeId"] for image in images] == ["player", "player.playing"]
    text, *rest = result.content
    assert isinstance(text, types.TextContent) and "2 PNG image(s)" in text.text
    assert len(rest) == len(images)
    for block in rest:
        assert isinstance(block, types.ImageContent) and block.mime_type == "image/png"
        assert base64.b64decode(block.data).startswith(b"\x89PNG")


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_app_resource_tool_meta_and_extension(mode: str) -> None:
    server = create_server(tools=["visualize_machine", "validate_machine"])
    assert server.extensions.get(EXTENSION_ID) == {}
    async with Client(server, mode=mode) as client:
        listed = await client.list_tools()
        resources = await client.list_resources()
        read = await client.read_resource(APP_URI)
    tool = next(t for t in listed.tools if t.name == "visualize_machine")
    assert tool.meta == {"ui": {"resourceUri": APP_URI}}
    other = next(t for t in listed.tools if t.name == "validate_machine")
    assert other.meta is None
    # The app, and the reference document the instructions point to (statekit.tools.references).
    assert [str(r.uri) for r in resources.resources] == [APP_URI, TOOL_SCHEMAS_URI]
    assert resources.resources[0].mime_type == APP_MIME_TYPE
    (content,) = read.contents
    assert isinstance(content, types.TextResourceContents)
    assert content.mime_type == "text/html;profile=mcp-app"
    assert content.text.startswith("<!doctype html>") and "ui/initialize" in content.text


async def test_servers_without_app_tools_serve_no_app() -> None:
    server = create_server(tools=["validate_machine"])
    assert EXTENSION_ID not in server.extensions
    async with Client(server) as client:
        resources = await client.list_resources()
    assert [str(r.uri) for r in resources.resources] == [TOOL_SCHEMAS_URI]


async def test_content_key_blocks_are_checked_and_stripped(monkeypatch: pytest.MonkeyPatch) -> None:
    registry.tools()
    good = _blocks_tool([{"type": "image", "data": "aGk=", "mimeType": "image/png"},
                         {"type": "text", "text": "extra"}])
    monkeypatch.setitem(registry._REGISTRY, good.name, good)
    # A lambda cannot cross to a worker process: this tool runs in server threads.
    async with Client(create_server(tools=[good.name], in_process=True), mode="legacy") as client:
        result = await client.call_tool(good.name, {})
    assert result.structured_content == {"n": 2}
    assert [block.type for block in result.content] == ["text", "image", "text"]

    bad = _blocks_tool([{"type": "image", "data": "aGk="}])  # no mimeType: not MCP content
    monkeypatch.setitem(registry._REGISTRY, bad.name, bad)
    async with Client(create_server(tools=[bad.name], in_process=True), mode="legacy") as client:
        failed = await client.call_tool(bad.name, {})
    assert failed.is_error is True and failed.structured_content is not None
    assert failed.structured_content["code"] == "internal_error"
