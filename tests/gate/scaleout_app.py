"""The app the scale-out test and bench run under `uvicorn --workers N` (configured by environment).

STATEKIT_GATE_REDIS   the Redis URL every worker shares (state, side-effect counters, relay)
STATEKIT_GATE_PREFIX  key prefix for this run (so runs never see each other's data)
STATEKIT_GATE_HOLD_MS the `after` delay of the `hold` state (default 300 ms)

Handle mode: `create` mints a workflow; `submit` -> review -> `approve` (counted in Redis: the
side effect that must happen once); `hold` -> waits HOLD_MS -> expired (each firing counted by an
on_transition hook). The principal-keyed session tools (`open_till`, by the `x-user` header)
share list changes across workers through the Redis relay.
"""

from __future__ import annotations

import os
from typing import Any

import redis.asyncio
from mcp.server.lowlevel.server import Server

from statekit.gate import (
    Gate,
    GateCall,
    RedisListChangedRelay,
    RedisStore,
    TransitionInfo,
)

URL = os.environ.get("STATEKIT_GATE_REDIS", "redis://127.0.0.1:6379/0")
PREFIX = os.environ.get("STATEKIT_GATE_PREFIX", "scaleout:")
HOLD_MS = int(os.environ.get("STATEKIT_GATE_HOLD_MS", "300"))
#: The control run of the bench: without the relay, a stream on another worker misses the change.
RELAY = os.environ.get("STATEKIT_GATE_NO_RELAY") != "1"

FLOW: dict[str, Any] = {
    "id": "flow",
    "initial": "draft",
    "states": {
        "draft": {"on": {"SUBMIT": "review", "HOLD": "hold"}},
        "review": {"on": {"APPROVE": "approved"}},
        "hold": {"after": {str(HOLD_MS): "expired"}},
        "approved": {},
        "expired": {},
    },
}
TILL: dict[str, Any] = {
    "id": "till",
    "initial": "closed",
    "states": {"closed": {"on": {"OPEN": "open"}}, "open": {"on": {"CLOSE": "closed"}}},
}

counters = redis.asyncio.Redis.from_url(URL)


async def count_timer(info: TransitionInfo) -> None:
    if info.tool is None:
        await counters.incr(f"{PREFIX}timer-fired:{info.key}")


def principal(ctx: Any) -> str | None:
    request = getattr(ctx, "request", None)
    return None if request is None else request.headers.get("x-user")


def build() -> tuple[Server[Any], Gate]:
    server: Server[Any] = Server("scaleout")
    flow = Gate(
        FLOW,
        store=RedisStore.from_url(URL, key_prefix=PREFIX),
        mode="handle",
        state_handle_key="flow_id",
        on_transition=count_timer,
    )

    @flow.tool(description="Start a workflow.", creates_handle=True)
    async def create(arguments: dict[str, Any], call: GateCall) -> dict[str, Any]:
        return {"flow_id": call.handle, "pid": os.getpid()}

    @flow.tool(description="Submit for review.", bind="draft", on_success="SUBMIT")
    async def submit(arguments: dict[str, Any], call: GateCall) -> dict[str, Any]:
        return {"pid": os.getpid()}

    @flow.tool(description="Put on hold; expires.", bind="draft", on_success="HOLD")
    async def hold(arguments: dict[str, Any], call: GateCall) -> dict[str, Any]:
        return {"pid": os.getpid()}

    @flow.tool(description="Approve (the side effect).", bind="review", on_success="APPROVE")
    async def approve(arguments: dict[str, Any], call: GateCall) -> dict[str, Any]:
        await counters.incr(f"{PREFIX}approved:{call.key}")
        return {"pid": os.getpid()}

    @flow.tool(description="Where is it?")
    async def status(arguments: dict[str, Any], call: GateCall) -> dict[str, Any]:
        return {"state": call.state, "pid": os.getpid()}

    till = Gate(
        TILL,
        store=RedisStore.from_url(URL, key_prefix=PREFIX),
        principal=principal,
        modern_list="by_state",  # its list follows each principal's till (the relay carries it)
        list_changed_relay=RedisListChangedRelay.from_url(URL, channel=f"{PREFIX}changed")
        if RELAY
        else None,
    )

    @till.tool(description="Open the till.", bind="closed", on_success="OPEN")
    async def open_till(arguments: dict[str, Any], call: GateCall) -> dict[str, Any]:
        return {"pid": os.getpid()}

    flow.install(server)
    till.install(server)
    return server, flow


server, flow_gate = build()
app = flow_gate.sweeping(server.streamable_http_app(), interval=0.05)
