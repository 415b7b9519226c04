"""The named implementations that oracle cases may refer to, for statekit.

`implementations.mjs` defines the same names with the same behaviour for real XState: keep
the two files in step (same names, same params, same defaults for missing context keys).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import statekit
from statekit.engine.implementations import ActionArgs, Assign, GuardFunction, Setup


def _count(context: Mapping[str, Any]) -> Any:
    # JS `context.count ?? 0`: a missing key and an explicit null both count as 0.
    count = context.get("count")
    return 0 if count is None else count


def _is_number(value: Any) -> bool:
    # JS `typeof value === 'number'`: booleans are not numbers there.
    return isinstance(value, int | float) and not isinstance(value, bool)


GUARDS: dict[str, GuardFunction] = {
    "isTrue": lambda args, params: True,
    "isFalse": lambda args, params: False,
    "countIs": lambda args, params: _count(args.context) == params["value"],
    "countAbove": lambda args, params: _count(args.context) > params["value"],
    "countBelow": lambda args, params: _count(args.context) < params["value"],
    "eventOk": lambda args, params: args.event.get("ok") is True,
    "eventValueAbove": lambda args, params: (
        _is_number(args.event.get("value")) and args.event["value"] > params["value"]
    ),
}


def _record(args: ActionArgs, params: Any) -> dict[str, Any]:
    return {"log": [*(args.context.get("log") or []), args.event["type"]]}


ACTIONS: dict[str, Assign] = {
    "increment": statekit.assign(lambda args, params: {"count": _count(args.context) + 1}),
    "decrement": statekit.assign(lambda args, params: {"count": _count(args.context) - 1}),
    "addValue": statekit.assign(
        lambda args, params: {"count": _count(args.context) + params["value"]}
    ),
    "setFromEvent": statekit.assign(lambda args, params: {"value": args.event.get("value")}),
    # The init event carries the machine input ({type: 'xstate.init', input}).
    "storeInput": statekit.assign(lambda args, params: {"input": args.event.get("input")}),
    # Done events carry `output` (final states, actors); error events carry `error`.
    # A missing key gives None, like JS `event.x ?? null`.
    "storeOutput": statekit.assign(lambda args, params: {"output": args.event.get("output")}),
    "storeError": statekit.assign(lambda args, params: {"error": args.event.get("error")}),
    "record": statekit.assign(_record),
    "reset": statekit.assign(lambda args, params: {"count": 0, "log": []}),
}

DELAYS: dict[str, int] = {
    "short": 100,
    "long": 5000,
}


@dataclass(frozen=True)
class ActorLogic:
    """What an actor would do if it ran; the pure engine only needs the name to resolve."""

    kind: str
    result: str | None = None


ACTORS: dict[str, ActorLogic] = {
    "fetcher": ActorLogic("promise", "fetched"),
    "saver": ActorLogic("promise", "saved"),
    "ticker": ActorLogic("callback"),
}


def _constant_guard(result: bool) -> GuardFunction:
    def guard(args: ActionArgs, params: Any) -> bool:
        return result

    return guard


def guards_with_overrides(overrides: Mapping[str, bool] | None = None) -> dict[str, GuardFunction]:
    """The guards, with a case's `guards: {name: true|false}` replacing those by constants."""
    merged = dict(GUARDS)
    for name, value in (overrides or {}).items():
        merged[name] = _constant_guard(value is True)
    return merged


def setup_for_case(overrides: Mapping[str, bool] | None = None) -> Setup:
    """`statekit.setup(...)` with the shared implementations (and a case's guard overrides)."""
    return statekit.setup(
        guards=guards_with_overrides(overrides),
        actions=ACTIONS,
        delays=DELAYS,
        actors=ACTORS,
    )
