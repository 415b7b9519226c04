"""What a listed tool declares about the workflow states it needs, for lists that do not follow the state.

MCP 2026-07-28 says a server's tool list "MUST NOT vary per-connection or as a side effect of
other requests on the connection" (SEP-2567), and most clients never re-list anyway. So a
static list names every tool, and each bound tool says where it runs: in its description
(for the model) and in `_meta["statekit/gate"]` (for code). The `requirements` strings
(`state:<path>`, any one of them suffices) follow the shape of the draft tool-preconditions
proposal SEP-2487 (`execution.requirements`), kept under the gate's own `_meta` key until
that proposal is part of the protocol. The call path still refuses a call made elsewhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from statekit.gate.bindings import Binding
from statekit.gate.results import META_KEY


def declared_description(binding: Binding | None, description: str | None) -> str | None:
    """`description` with the states the tool runs in appended (unchanged for an unbound tool)."""
    if binding is None or not binding.is_state_bound:
        return description
    where = f"Allowed only while the workflow is in: {', '.join(binding.state_paths)}."
    if description and where in description:
        return description
    return f"{description or ''} {where}".strip()


def declared_meta(binding: Binding | None, meta: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """`meta` with the gate's declaration of where the tool runs and what it fires."""
    if binding is None:
        return None if meta is None else dict(meta)
    declaration: dict[str, Any] = {
        "requirements": [f"state:{path}" for path in binding.state_paths],
        "states": list(binding.state_paths),
    }
    if binding.event is not None:
        declaration["onSuccess"] = binding.event
    return {**(meta or {}), META_KEY: declaration}
