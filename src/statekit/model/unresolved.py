"""Markers the XState source reader leaves where it could not evaluate a value statically.

`{"$ref": name}` is a name it cannot see the value of (an import, a parameter, a `let`);
`{"$expr": source}` an expression that is not data (a call, `new Date()`). Neither is what
XState would compute, so nothing may treat them as the value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MARKERS = ("$ref", "$expr")


def unresolved_marker(value: Any, depth: int = 0) -> str | None:
    """The first `$ref` / `$expr` marker inside `value`, shown as source; None when there is none."""
    if depth > 64:
        return None
    if isinstance(value, Mapping):
        if len(value) == 1:
            for marker in MARKERS:
                if isinstance(value.get(marker), str):
                    return str(value[marker])
        for item in value.values():
            found = unresolved_marker(item, depth + 1)
            if found is not None:
                return found
    elif isinstance(value, list | tuple):
        for item in value:
            found = unresolved_marker(item, depth + 1)
            if found is not None:
                return found
    return None
