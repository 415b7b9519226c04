"""How machine data marks inline code: a JavaScript function kept as source, `{"$js": source}`.

The marker is part of the machine's data, so it lives with the model: the parser recognises it
and the engine runs it (through its code evaluator, never in Python).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

JS_MARKER = "$js"


def is_inline(value: Any) -> bool:
    """Whether `value` is an inline function written as `{"$js": source}`."""
    return isinstance(value, Mapping) and len(value) == 1 and isinstance(value.get(JS_MARKER), str)
