"""Argument schemas several tools share, so that the same argument means the same everywhere."""

from __future__ import annotations

from typing import Any

from statekit.formats import formats
from statekit.hosted.provider import ID_PATTERN


def readable_format_titles() -> list[str]:
    """The titles of every format a `machine` argument may be given in (the format registry's)."""
    return [spec.title for spec in formats().values() if spec.read is not None]


def machine_argument(what: str = "The machine") -> dict[str, Any]:
    """A machine in any readable format: a config object, or text whose format is detected.

    The description names every format the registry reads, so it cannot fall behind a format
    added later (`tests/server/test_tool_surface.py` checks every listed machine argument)."""
    return {
        "description": f"{what}: a config object, or text in {', '.join(readable_format_titles())}.",
        "anyOf": [{"type": "object"}, {"type": "string"}],
    }


#: A machine in any registered format: a config object, or text (JSON, YAML, SCXML, ...).
MACHINE_ARGUMENT: dict[str, Any] = machine_argument()

#: Named guards' results, for tools that run a machine without its code for them.
GUARDS_ARGUMENT: dict[str, Any] = {"type": "object", "additionalProperties": {"type": "boolean"},
                                   "description": "Results for named guards, over their implementations; "
                                                  "a guard implemented nowhere is true."}
#: The machine's input.
INPUT_ARGUMENT: dict[str, Any] = {"description": "The machine input (the xstate.init event's)."}

#: A hosted project or machine id: letters, digits and . _ : ~ - (at most 200), never a URL path.
ID_ARGUMENT: dict[str, Any] = {"type": "string", "minLength": 1, "maxLength": 200, "pattern": ID_PATTERN}
