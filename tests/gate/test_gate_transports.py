"""The example server driven by the SDK's real client over stdio and streamable HTTP, both eras."""

from __future__ import annotations

import os
import sys
from typing import Any

import mcp_types as types
import pytest
from gate_helpers import EXAMPLE, REPO, http_server
from mcp import Client, StdioServerParameters

LEGACY = "legacy"
MODERN = "2026-07-28"


def stdio_params(*args: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=[str(EXAMPLE), *args], env=dict(os.environ), cwd=str(REPO)
    )


async def names(client: Client) -> list[str]:
    return [tool.name for tool in (await client.list_tools(cache_mode="refresh")).tools]


class Notifications:
    """Collects `notifications/tools/list_changed` a legacy client receives."""

    def __init__(self) -> None:
        self.tools_changed = 0

    async def __call__(self, message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self.tools_changed += 1


DRAFT = ["add_line_item", "submit_invoice", "get_invoice"]
REVIEW = ["approve_invoice", "reject_invoice", "get_invoice"]
APPROVED = ["discharge_invoice", "get_invoice"]


async def walk_session_workflow(client: Client, notifications: Notifications | None) -> None:
    """Visibility per state, FORBIDDEN on a guessed name, list_changed on every list change."""
    assert await names(client) == DRAFT
    guessed = await client.call_tool("discharge_invoice", {})
    assert guessed.is_error and guessed.structured_content is not None
    assert guessed.structured_content["code"] == "FORBIDDEN"
    assert guessed.structured_content["allowedTools"] == DRAFT
    empty = await client.call_tool("submit_invoice", {})
    assert empty.is_error  # no line items: the handler refused, nothing fired
    assert await names(client) == DRAFT
    await client.call_tool("add_line_item", {"description": "audit", "amount": 1200})
    submitted = await client.call_tool("submit_invoice", {})
    assert not submitted.is_error
    assert await names(client) == REVIEW
    await client.call_tool("approve_invoice", {"note": "ok"})
    assert await names(client) == APPROVED
    paid = await client.call_tool("discharge_invoice", {})
    assert "Paid 1200 EUR." in paid.content[0].text  # type: ignore[union-attr]
    assert await names(client) == ["get_invoice"]
    if notifications is not None:
        assert notifications.tools_changed == 3


async def test_stdio_legacy_session() -> None:
    notifications = Notifications()
    async with Client(stdio_params(), mode=LEGACY, message_handler=notifications) as client:
        assert client.protocol_version == "2025-11-25"
        await walk_session_workflow(client, notifications)


async def test_stdio_modern_lists_statically_and_refuses_on_the_call_path() -> None:
    """2026-07-28 over stdio: one list for the whole walk; where a tool runs is declared in it."""
    async with Client(stdio_params(), mode="auto") as client:
        assert client.protocol_version == MODERN
        first = await client.list_tools()
        assert set(DRAFT) | set(REVIEW) <= {tool.name for tool in first.tools}
        refused = await client.call_tool("approve_invoice", {})
        assert refused.structured_content is not None
        assert refused.structured_content["code"] == "FORBIDDEN"
        await client.call_tool("add_line_item", {"description": "x", "amount": 5})
        assert not (await client.call_tool("submit_invoice", {})).is_error
        assert (await client.list_tools(cache_mode="refresh")).tools == first.tools
        assert not (await client.call_tool("approve_invoice", {})).is_error


async def test_http_legacy_sessions_are_isolated() -> None:
    with http_server(EXAMPLE) as url:
        first_notes, second_notes = Notifications(), Notifications()
        async with (
            Client(url, mode=LEGACY, message_handler=first_notes) as first,
            Client(url, mode=LEGACY, message_handler=second_notes) as second,
        ):
            assert first.server_capabilities.tools is not None
            assert first.server_capabilities.tools.list_changed is True
            await walk_session_workflow(first, first_notes)
            # The second session never moved.
            assert await names(second) == DRAFT
            refused = await second.call_tool("discharge_invoice", {})
            assert refused.structured_content is not None
            assert refused.structured_content["code"] == "FORBIDDEN"
            assert second_notes.tools_changed == 0
            invoice = await second.call_tool("get_invoice", {})
            assert invoice.structured_content is not None
            assert invoice.structured_content["lines"] == []


@pytest.mark.parametrize("mode", [LEGACY, MODERN])
async def test_http_handle_mode_isolates_handles(mode: str) -> None:
    with http_server(EXAMPLE, "--mode", "handle") as url:
        async with Client(url, mode=mode) as client, Client(url, mode=mode) as other:
            listed = await names(client)
            assert listed == [
                "create_invoice",
                "add_line_item",
                "submit_invoice",
                "approve_invoice",
                "reject_invoice",
                "discharge_invoice",
                "get_invoice",
            ]
            mine = (
                await client.call_tool("create_invoice", {"customer": "ACME"})
            ).structured_content
            theirs = (
                await other.call_tool("create_invoice", {"customer": "Initech"})
            ).structured_content
            assert mine is not None and theirs is not None
            one, two = mine["invoice_id"], theirs["invoice_id"]
            await client.call_tool(
                "add_line_item", {"invoice_id": one, "description": "a", "amount": 10}
            )
            submitted = await client.call_tool("submit_invoice", {"invoice_id": one})
            assert not submitted.is_error
            # The list is the same for every connection (2026-07-28), whatever the handles do.
            assert await names(other) == listed
            for handle, expected_state in ((one, "review"), (two, "draft")):
                refused = await other.call_tool("discharge_invoice", {"invoice_id": handle})
                assert refused.structured_content is not None
                assert refused.structured_content["code"] == "FORBIDDEN"
                assert refused.structured_content["state"] == expected_state
            guessed = await other.call_tool("approve_invoice", {"invoice_id": "made-up"})
            assert guessed.structured_content is not None
            assert guessed.structured_content["code"] == "NOT_FOUND"
            approved = await other.call_tool("approve_invoice", {"invoice_id": one})
            assert not approved.is_error
            assert approved.meta is not None
            assert approved.meta["statekit/gate"]["allowedTools"] == [
                "create_invoice",
                "discharge_invoice",
                "get_invoice",
            ]


def test_agent_view_generator_runs() -> None:
    """`--agent-view` (which produced the walkthrough in docs/gate.md) still runs end to end."""
    import subprocess

    output = subprocess.run(
        [sys.executable, str(EXAMPLE), "--agent-view"],
        cwd=REPO,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    assert 'FORBIDDEN: Tool "discharge_invoice"' in output
    assert output.count("the server sent `notifications/tools/list_changed`") == 3
    assert "Paid 1200 EUR." in output
