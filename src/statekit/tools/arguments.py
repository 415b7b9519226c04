"""Argument schemas several tools share, so that the same argument means the same everywhere."""

from __future__ import annotations

from typing import Any

from statekit.hosted.provider import ID_PATTERN

#: A machine in any registered format: a config object, or text (JSON, YAML, SCXML, ...).
MACHINE_ARGUMENT: dict[str, Any] = {
    "description": "The machine: an XState v5 config object (or {\"machine\": config}), or JSON or YAML text of one.",
    "anyOf": [{"type": "object"}, {"type": "string"}],
}

#: A hosted project or machine id: letters, digits and . _ : ~ - (at most 200), never a URL path.
ID_ARGUMENT: dict[str, Any] = {"type": "string", "minLength": 1, "maxLength": 200, "pattern": ID_PATTERN}
