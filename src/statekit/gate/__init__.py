"""FSM state gating for MCP servers built on the official `mcp` SDK.

Bind tools to the states of an XState v5 workflow: a tool is listed and callable
only while the workflow is in one of its states, and a successful call fires its
event. See `docs/gate.md`.
"""

from statekit.gate.errors import GateConfigError
from statekit.gate.gate import Gate, GateCall
from statekit.gate.keys import WorkflowKey, authenticated_principal
from statekit.gate.redis_store import RedisStore
from statekit.gate.relay import ListChangedRelay, RedisListChangedRelay
from statekit.gate.sqlite_store import SQLiteStore
from statekit.gate.store import MemoryStore, StateStore, StoreConflict

__all__ = [
    "Gate",
    "GateCall",
    "GateConfigError",
    "ListChangedRelay",
    "MemoryStore",
    "RedisListChangedRelay",
    "RedisStore",
    "SQLiteStore",
    "StateStore",
    "StoreConflict",
    "WorkflowKey",
    "authenticated_principal",
]
