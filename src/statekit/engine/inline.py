"""Inline code in machine data: JavaScript functions kept as source, run only by an evaluator.

XState source often writes guards, assignments, events and outputs as inline functions.
statekit keeps them as source text (`Guard.code`, `Action.code`, or a `{"$js": source}`
value) and never runs them in Python: the machine's `CodeEvaluator` (the QuickJS sandbox)
does, with JSON in and JSON out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from statekit.errors import EngineError
from statekit.model.inline import JS_MARKER, is_inline

__all__ = ["JS_MARKER", "CodeEvaluator", "InlineGuard", "evaluate_inline", "implementations_from_code", "is_inline"]


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


def implementations_from_code(source: Mapping[str, Any], evaluator: CodeEvaluator | None) -> Any:
    """`Implementations` for a `setup({...})` read from XState source, its functions run by `evaluator`.

    `source` is what the XState source reader extracts: `{"guards": {name: impl}, "actions":
    ..., "actors": ..., "delays": ...}` where `impl` is `{"code": function source}`,
    `{"value": data}` (a number of milliseconds, a guard or built-in action written as config
    data) or a built-in action object (`{"type": "xstate.assign", ...}`), or `{"$ref": name}`
    (not resolvable statically: left unimplemented, so using it fails as in XState).
    `source["moduleScope"]` (`{"constants", "unavailable", "closures"}`) is what the inline
    functions read from the module around the machine (`closures`: per function source, the
    factory arguments it closes over); the evaluator defines it before running any code.
    """
    from statekit.engine.implementations import Implementations

    guards: dict[str, Any] = {}
    actions: dict[str, Any] = {}
    delays: dict[str, Any] = {}
    scope = source.get("moduleScope")
    if isinstance(scope, Mapping) and evaluator is not None:
        # Module constants the inline functions read (statekit.extract.captures).
        define = getattr(evaluator, "define", None)
        if define is not None:
            closures = scope.get("closures")
            logic = scope.get("logic")
            extra: dict[str, Any] = {}
            if isinstance(closures, Mapping) and closures:
                extra["closures"] = closures
            if isinstance(logic, Mapping) and logic:
                extra["logic"] = dict(logic)
            define(dict(scope.get("constants") or {}), dict(scope.get("unavailable") or {}), **extra)
    for name, item in _group(source, "guards").items():
        if isinstance(item, Mapping) and isinstance(item.get("code"), str):
            guards[name] = _inline_guard(item["code"], evaluator, name)
        elif isinstance(item, Mapping) and "value" in item:
            guards[name] = item["value"]
    for name, item in _group(source, "actions").items():
        if isinstance(item, Mapping) and isinstance(item.get("code"), str):
            actions[name] = _inline_action(item["code"], evaluator, name)
        elif isinstance(item, Mapping) and isinstance(item.get("value"), Mapping):
            actions[name] = item["value"]
        elif isinstance(item, Mapping) and isinstance(item.get("type"), str):
            actions[name] = item
    for name, item in _group(source, "delays").items():
        if isinstance(item, Mapping) and isinstance(item.get("code"), str):
            delays[name] = _inline_delay(item["code"], evaluator, name)
        elif isinstance(item, Mapping) and isinstance(item.get("value"), int | float):
            delays[name] = item["value"]
    # The pure engine never runs actor logic: a known `src` is what makes a child exist.
    actors = {name: item for name, item in _group(source, "actors").items() if "$ref" not in item}
    return Implementations(guards=guards, actions=actions, delays=delays, actors=actors, evaluator=evaluator)


def _group(source: Mapping[str, Any], kind: str) -> Mapping[str, Mapping[str, Any]]:
    group = source.get(kind)
    if not isinstance(group, Mapping):
        return {}
    return {name: item for name, item in group.items() if isinstance(name, str) and isinstance(item, Mapping)}


def _arguments(args: Any) -> dict[str, Any]:
    return {"context": args.context, "event": args.event}


class InlineGuard:
    """A named guard whose implementation is inline JavaScript run by a sandbox's guard path
    (`JsSandbox.guard_passes`, JavaScript's truthiness). Callable as any guard implementation;
    the JS evaluator calls `guard_passes` directly, without building `ActionArgs`."""

    __slots__ = ("code", "guard_passes", "where")

    def __init__(self, code: str, guard_passes: Callable[[str, Any, Any, Any, str], bool], where: str) -> None:
        self.code = code
        self.where = where
        self.guard_passes = guard_passes

    def __call__(self, args: Any, params: Any) -> bool:
        return self.guard_passes(self.code, args.context, args.event, params, self.where)


def _inline_guard(code: str, evaluator: CodeEvaluator | None, name: str) -> Any:
    where = f"guard '{name}'"
    guard_passes = getattr(evaluator, "guard_passes", None)  # the QuickJS sandbox's path for a guard
    if guard_passes is not None:
        return InlineGuard(code, guard_passes, where)

    def guard(args: Any, params: Any) -> bool:
        return bool(evaluate_inline(evaluator, code, _arguments(args), params, where))

    return guard


def _inline_action(code: str, evaluator: CodeEvaluator | None, name: str) -> Any:
    # The pure engine only reports a named action; an actor that executes it runs the code.
    def action(args: Any, params: Any) -> None:
        evaluate_inline(evaluator, code, _arguments(args), params, f"action '{name}'")

    return action


def _inline_delay(code: str, evaluator: CodeEvaluator | None, name: str) -> Any:
    def delay(args: Any, params: Any) -> Any:
        return evaluate_inline(evaluator, code, _arguments(args), params, f"delay '{name}'")

    return delay
