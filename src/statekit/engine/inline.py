"""Inline code in machine data: JavaScript functions kept as source, run only by an evaluator.

XState source often writes guards, assignments, events and outputs as inline functions.
statekit keeps them as source text (`Guard.code`, `Action.code`, or a `{"$js": source}`
value) and never runs them in Python: the machine's `CodeEvaluator` (the QuickJS sandbox)
does, with JSON in and JSON out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from statekit.errors import EngineError

JS_MARKER = "$js"


def is_inline(value: Any) -> bool:
    """Whether `value` is an inline function written as `{"$js": source}`."""
    return isinstance(value, Mapping) and len(value) == 1 and isinstance(value.get(JS_MARKER), str)


class CodeEvaluator(Protocol):
    """Runs one inline function: `(args, params) => result`, JSON in, JSON out."""

    def evaluate(self, code: str, args: Mapping[str, Any], params: Any, *, where: str = "") -> Any:
        """The function's result for `args` (`{context, event, ...}`); raise EngineError on failure."""
        ...


def evaluate_inline(evaluator: CodeEvaluator | None, code: str, args: Mapping[str, Any], params: Any,
                    where: str = "") -> Any:
    """Run inline code through `evaluator`, or explain that a sandbox is needed."""
    if evaluator is None:
        raise EngineError(
            f"inline JavaScript{f' in {where}' if where else ''} needs a code evaluator "
            "(statekit runs inline functions only in its JavaScript sandbox)"
        )
    return evaluator.evaluate(code, args, params, where=where)
