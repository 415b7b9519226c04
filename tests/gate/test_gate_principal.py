"""2026-07-28 over HTTP with a per-principal list: list_changed reaches only that principal's streams."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from gate_helpers import http_server
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

SERVER = Path(__file__).parent / "gate_server.py"
MODERN = "2026-07-28"


def as_principal(url: str, user: str) -> Client:
    transport = streamable_http_client(
        url, http_client=create_mcp_http_client(headers={"x-user": user})
    )
    return Client(transport, mode=MODERN)


async def collect(client: Client, seen: list[Any], ready: asyncio.Event) -> None:
    async with client.listen(tools_list_changed=True) as events:
        ready.set()
        async for event in events:
            seen.append(event)


async def test_lists_and_notifications_follow_the_principal() -> None:
    with http_server(SERVER, "--principal-header", "x-user") as url:
        async with as_principal(url, "alice") as alice, as_principal(url, "bob") as bob:
            alice_seen: list[Any] = []
            bob_seen: list[Any] = []
            alice_ready, bob_ready = asyncio.Event(), asyncio.Event()
            listeners = [
                asyncio.create_task(collect(alice, alice_seen, alice_ready)),
                asyncio.create_task(collect(bob, bob_seen, bob_ready)),
            ]
            async with asyncio.timeout(30):
                await alice_ready.wait()
                await bob_ready.wait()
                listed = await alice.list_tools()
                assert (listed.ttl_ms, listed.cache_scope) == (0, "private")
                assert not (await alice.call_tool("submit_invoice", {})).is_error
                while not alice_seen:
                    await asyncio.sleep(0.01)
                assert [t.name for t in (await alice.list_tools(cache_mode="refresh")).tools] == [
                    "approve_invoice"
                ]
                assert [t.name for t in (await bob.list_tools(cache_mode="refresh")).tools] == [
                    "submit_invoice"
                ]
                # Bob's own change: had Alice's event reached him, it would be ahead of this one.
                assert not (await bob.call_tool("submit_invoice", {})).is_error
                while not bob_seen:
                    await asyncio.sleep(0.01)
            assert len(bob_seen) == 1
            assert len(alice_seen) == 1
            for listener in listeners:
                listener.cancel()
            await asyncio.gather(*listeners, return_exceptions=True)


async def test_list_changes_reach_listen_streams_on_another_replica(redis_url: str) -> None:
    replica = ["--principal-header", "x-user", "--relay", redis_url]
    with http_server(SERVER, *replica) as url_a, http_server(SERVER, *replica) as url_b:
        async with (
            as_principal(url_a, "carol") as carol_on_a,
            as_principal(url_b, "carol") as carol_on_b,
            as_principal(url_a, "dave") as dave_on_a,
            as_principal(url_b, "dave") as dave_on_b,
        ):
            carol_seen: list[Any] = []
            dave_seen: list[Any] = []
            carol_ready, dave_ready = asyncio.Event(), asyncio.Event()
            listeners = [
                asyncio.create_task(collect(carol_on_a, carol_seen, carol_ready)),
                asyncio.create_task(collect(dave_on_a, dave_seen, dave_ready)),
            ]
            async with asyncio.timeout(30):
                await carol_ready.wait()
                await dave_ready.wait()
                # Carol moves her workflow through replica B; her stream lives on replica A.
                assert not (await carol_on_b.call_tool("submit_invoice", {})).is_error
                while not carol_seen:
                    await asyncio.sleep(0.01)
                assert [
                    t.name for t in (await carol_on_a.list_tools(cache_mode="refresh")).tools
                ] == ["approve_invoice"]
                assert not (await dave_on_b.call_tool("submit_invoice", {})).is_error
                while not dave_seen:
                    await asyncio.sleep(0.01)
            assert len(carol_seen) == 1
            assert len(dave_seen) == 1
            for listener in listeners:
                listener.cancel()
            await asyncio.gather(*listeners, return_exceptions=True)
