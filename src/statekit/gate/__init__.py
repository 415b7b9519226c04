"""FSM state gating for MCP servers built on FastMCP 4.x or the official `mcp` SDK.

Bind tools to the states of an XState v5 workflow: a tool is listed and callable
only while the workflow is in one of its states, and a successful call fires its
event. See `docs/gate.md`.
"""

from statekit.gate.admin import GateAdmin
from statekit.gate.calls import GateCall, current_call
from statekit.gate.errors import GateConfigError
from statekit.gate.gate import Gate
from statekit.gate.hooks import TransitionInfo
from statekit.gate.keys import WorkflowKey, authenticated_principal
from statekit.gate.redis_store import RedisStore
from statekit.gate.relay import ListChangedRelay, RedisListChangedRelay
from statekit.gate.sqlite_store import SQLiteStore
from statekit.gate.store import (
    CorruptRecord,
    MemoryStore,
    ScanStore,
    StateStore,
    StoreConflict,
    StoreError,
    StoreUnavailable,
)

__all__ = [
    "CorruptRecord",
    "Gate",
    "GateAdmin",
    "GateCall",
    "GateConfigError",
    "ListChangedRelay",
    "MemoryStore",
    "RedisListChangedRelay",
    "RedisStore",
    "SQLiteStore",
    "ScanStore",
    "StateStore",
    "StoreConflict",
    "StoreError",
    "StoreUnavailable",
    "TransitionInfo",
    "WorkflowKey",
    "authenticated_principal",
    "current_call",
]
