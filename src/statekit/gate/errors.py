"""Errors the gate raises at registration, and the codes it puts in refused tool results."""

from __future__ import annotations

from typing import Final, Literal

from statekit.errors import StatekitError

#: Codes of the `isError` results the gate itself produces (the `code` field of their payload).
GateResultCode = Literal[
    "FORBIDDEN",
    "CONFLICT",
    "NOT_FOUND",
    "HANDLE_REQUIRED",
    "NO_WORKFLOW_KEY",
    "GATE_MISCONFIGURED",
    "STORE_UNAVAILABLE",
    "CORRUPT_RECORD",
]

#: The tool is not allowed in the workflow's current state.
FORBIDDEN: Final = "FORBIDDEN"
#: Another call is moving the workflow, or won a race: list again and retry.
CONFLICT: Final = "CONFLICT"
#: Handle mode: no workflow has that handle (unknown, mistyped or expired).
NOT_FOUND: Final = "NOT_FOUND"
#: Handle mode: the call carried no handle (or not a string one).
HANDLE_REQUIRED: Final = "HANDLE_REQUIRED"
#: HTTP request without session, handle or principal, and no shared fallback was configured.
NO_WORKFLOW_KEY: Final = "NO_WORKFLOW_KEY"
#: The gate's bindings do not match the server (e.g. a bound tool the server never lists).
GATE_MISCONFIGURED: Final = "GATE_MISCONFIGURED"
#: The state store could not be reached; retry later.
STORE_UNAVAILABLE: Final = "STORE_UNAVAILABLE"
#: The workflow's stored record cannot be read; an operator must repair it (admin API).
CORRUPT_RECORD: Final = "CORRUPT_RECORD"

#: JSON-RPC error code for a `tools/list` the gate cannot answer safely (server-defined range).
LIST_REFUSED_RPC_CODE: Final = -32050


class GateConfigError(StatekitError):
    """A binding or the gate's setup is wrong; raised at registration so a server never starts open."""
