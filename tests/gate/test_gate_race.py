"""Two server processes share one store: 50 racing calls on one handle have exactly one winner."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest
from gate_helpers import http_server
from mcp import Client

SERVER = Path(__file__).parent / "gate_server.py"
MODERN = "2026-07-28"


@pytest.mark.parametrize("store", ["redis", "sqlite"])
async def test_fifty_calls_from_two_processes_have_one_winner(
    store: str, redis_url: str, tmp_path: Path
) -> None:
    import redis.asyncio  # after the fixture, which skips or fails cleanly without it

    # State in Redis, or in one SQLite file both processes open; the side-effect counter is in Redis.
    args = ["--redis", redis_url] + (
        ["--sqlite", str(tmp_path / "gate.db")] if store == "sqlite" else []
    )
    with http_server(SERVER, *args) as url_a, http_server(SERVER, *args) as url_b:
        async with Client(url_a, mode=MODERN) as client_a, Client(url_b, mode=MODERN) as client_b:
            created = (await client_a.call_tool("create_invoice", {})).structured_content
            assert created is not None
            handle = created["invoice_id"]
            # Process B sees the workflow process A created.
            assert not (await client_b.call_tool("submit_invoice", {"invoice_id": handle})).is_error
            clients = [client_a, client_b]
            results = await asyncio.gather(
                *(
                    clients[index % 2].call_tool("approve_invoice", {"invoice_id": handle})
                    for index in range(50)
                )
            )
            after = await client_a.call_tool("submit_invoice", {"invoice_id": handle})

    outcomes = Counter(
        "WIN" if not result.is_error else (result.structured_content or {}).get("code", "?")
        for result in results
    )
    assert outcomes["WIN"] == 1, outcomes
    assert set(outcomes) <= {"WIN", "CONFLICT", "FORBIDDEN"}, outcomes
    # Each loser learned why: a lease or a lost compare-and-set (CONFLICT), or the moved state (FORBIDDEN).
    assert after.structured_content is not None
    assert after.structured_content["state"] == "approved"
    counter = redis.asyncio.Redis.from_url(redis_url)
    assert int(await counter.get(f"side-effects:{handle}")) == 1
    await counter.aclose()
