"""A gated HTTP server for the multi-process tests (run as a script by the tests).

python gate_server.py --http --port P --redis URL [--sqlite PATH]
                                                      handle mode, state in Redis (or in SQLite
                                                      at PATH); every `approve` handler run is
                                                      counted in Redis
python gate_server.py --http --port P --principal-header x-user [--relay URL]
                                                      session mode keyed by a header standing
                                                      in for an authenticated principal; with
                                                      --relay, state and list changes shared
                                                      through the Redis server at URL
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

import uvicorn
from mcp.server.lowlevel.server import Server

sys.path.insert(0, str(Path(__file__).parent))
from gate_workflows import INVOICE

from statekit.gate import (
    Gate,
    GateCall,
    MemoryStore,
    RedisListChangedRelay,
    RedisStore,
    SQLiteStore,
    StateStore,
)


def build(
    redis_url: str | None,
    sqlite_path: str | None,
    principal_header: str | None,
    relay_url: str | None,
) -> Server[Any]:
    server: Server[Any] = Server("gate-test-server")
    if redis_url is not None:
        import redis.asyncio

        counter = redis.asyncio.Redis.from_url(redis_url)
        store: StateStore = (
            SQLiteStore(sqlite_path) if sqlite_path else RedisStore.from_url(redis_url)
        )
        gate = Gate(INVOICE, store=store, mode="handle", state_handle_key="invoice_id")

        @gate.tool(description="Start an invoice.", creates_handle=True)
        async def create_invoice(arguments: dict[str, Any], call: GateCall) -> dict[str, Any]:
            return {"invoice_id": call.handle}

    else:

        def principal(ctx: Any) -> str | None:
            request = getattr(ctx, "request", None)
            return None if request is None else request.headers.get(principal_header or "")

        if relay_url is None:
            # Per-principal lists and their listen streams: the opt-in 2026-07-28 list.
            gate = Gate(
                INVOICE, store=MemoryStore(), principal=principal, modern_list="by_state"
            )
        else:
            gate = Gate(
                INVOICE,
                store=RedisStore.from_url(relay_url),
                principal=principal,
                list_changed_relay=RedisListChangedRelay.from_url(relay_url),
                modern_list="by_state",
            )

    @gate.tool(description="Submit.", bind="draft", on_success="SUBMIT")
    async def submit_invoice(arguments: dict[str, Any], call: GateCall) -> str:
        return "submitted"

    @gate.tool(description="Approve.", bind="review", on_success="APPROVE")
    async def approve_invoice(arguments: dict[str, Any], call: GateCall) -> str:
        if redis_url is not None:
            # The side effect the race test counts: it must happen exactly once per handle.
            await counter.incr(f"side-effects:{call.handle}")
        # Widen the window in which a second process could slip in.
        await asyncio.sleep(0.05)
        return "approved"

    gate.install(server)
    return server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", action="store_true", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--redis")
    parser.add_argument("--sqlite")
    parser.add_argument("--principal-header")
    parser.add_argument("--relay")
    args = parser.parse_args()
    app = build(args.redis, args.sqlite, args.principal_header, args.relay).streamable_http_app()
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
