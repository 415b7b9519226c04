"""Checking what a resource provider returns before a tool hands it on.

A provider is a store statekit does not control (a remote API, a registry file someone else
wrote), so a machine it returns is validated on read: the record must be an object naming its
machine, and its definition must be a machine statekit can read (an XState config, XGraph or
DigraphDef object, or machine source text). `[1, 2]` stored as a definition is reported as
`upstream_error` with the reader's issues, never returned as if it were a machine.
"""

from __future__ import annotations

from typing import Any

from statekit.errors import ToolError
from statekit.hosted.provider import JSONObject


def _bad_record(machine_id: str, message: str, issues: list[dict[str, Any]] | None = None) -> ToolError:
    details: dict[str, Any] = {"retryable": False}
    if issues:
        details["issues"] = issues
    return ToolError("upstream_error", f"the resource provider's machine {machine_id!r} {message}", details)


def checked_machine(record: Any, machine_id: str) -> JSONObject:
    """`record` when it is a readable machine record; otherwise `upstream_error` with issues."""
    from statekit import formats

    if not isinstance(record, dict):
        raise _bad_record(machine_id, f"is not an object (a JSON {_kind(record)})")
    if not isinstance(record.get("machineId", machine_id), str):
        raise _bad_record(machine_id, "has a `machineId` that is not a string")
    graph = record.get("graph")
    if graph is not None and not isinstance(graph, dict):
        raise _bad_record(machine_id, f"has a `graph` that is not an object (a JSON {_kind(graph)})",
                          [{"path": "/graph", "message": "must be an object"}])
    if "definition" not in record and graph is None:
        raise _bad_record(machine_id, "has neither a definition nor a graph")
    definition = record.get("definition")
    if definition is None and graph is not None:
        return record
    if not isinstance(definition, dict | str):
        raise _bad_record(machine_id, f"has a definition that is not a machine (a JSON {_kind(definition)})",
                          [{"path": "/definition", "message": "must be a machine object or machine source text"}])
    try:
        formats.read_any(definition)
    except ToolError as error:
        issues = error.details.get("issues") if isinstance(error.details.get("issues"), list) else None
        raise _bad_record(machine_id, f"has a definition statekit cannot read as a machine: {error.message}",
                          issues or [{"path": "/definition", "message": error.message}]) from None
    return record


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, list):
        return "array"
    if value is None:
        return "null"
    return type(value).__name__
