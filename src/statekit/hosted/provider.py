"""The resource-provider interface the hosted tools read through (read-only by policy)."""

from __future__ import annotations

import re
from typing import Any, Final, Protocol

from statekit.errors import ToolError

JSONObject = dict[str, Any]

#: How statekit names itself to a resource API (a label; it carries no user or machine content).
DEFAULT_CLIENT_ID: Final = "statekit/embedded"

#: Project and machine ids: opaque, but never able to change a URL path or query. The hosted
#: tools' input schemas carry the same pattern, so every face refuses a bad id before any call.
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:~-]{0,199}$"
_ID = re.compile(ID_PATTERN)


def check_id(kind: str, value: Any) -> str:
    """`value` as a resource id, or `invalid_input` before any call."""
    if not isinstance(value, str) or not _ID.match(value):
        raise ToolError("invalid_input", f"`{kind}` must be an id of letters, digits and . _ : ~ - (at most 200)")
    return value


class ResourceProvider(Protocol):
    """Reads hosted projects and machines. Failures raise `ToolError` with a closed-set code."""

    def list_projects(self) -> list[JSONObject]:
        """`[{projectId, name, ...}]` the caller can access."""
        ...

    def get_project(self, project_id: str) -> JSONObject:
        """`{projectId, name, currentVersionId, machineIds, ...}`."""
        ...

    def list_project_machines(self, project_id: str) -> list[JSONObject]:
        """`[{machineId, name, ...}]` of a project."""
        ...

    def get_machine(self, machine_id: str) -> JSONObject:
        """`{machineId, name, projectId, definition, graph?, ...}`."""
        ...
