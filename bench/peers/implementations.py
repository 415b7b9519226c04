"""The Python implementations of the benchmark machines' named guards, assignments and delays.

Each mirrors the JavaScript source of the same name in the machine's spec
(``implementations`` in bench/machines/*.json), which XState runs in node; the traces of
every peer are checked against XState's, context included, so a mismatch shows.
Guards and assigners take ``(args, params)`` with ``args.context`` and ``args.event``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

Function = Callable[[Any, Any], Any]

WORKFLOW_GUARDS: dict[str, Function] = {
    "underLimit": lambda a, p: a.context["items"] < p["max"],
    "totalAtLeast": lambda a, p: a.context["total"] >= p["min"],
    "coversBalance": lambda a, p: a.event["amount"] >= a.context["total"] - a.context["paid"],
    "attemptsBelow": lambda a, p: a.context["attempts"] + 1 < p["max"],
    "reservesAll": lambda a, p: a.context["reserved"] + a.event["qty"] >= a.context["items"],
    "positive": lambda a, p: a.event[p["field"]] > 0,
    "methodAllowed": lambda a, p: a.event["method"] in p["methods"],
}

_EMPTY_ORDER = {"items": 0, "total": 0, "paid": 0, "attempts": 0, "reserved": 0, "method": None,
                "notes": 0, "rejected": 0, "orders": 0}

WORKFLOW_ASSIGNS: dict[str, Function] = {
    "addItem": lambda a, p: {"items": a.context["items"] + 1, "total": a.context["total"] + a.event["price"]},
    "reject": lambda a, p: {"rejected": a.context["rejected"] + 1},
    "startCheckout": lambda a, p: {"attempts": 0, "paid": 0},
    "cancelOrder": lambda a, p: {"items": 0, "total": 0, "rejected": a.context["rejected"] + 1},
    "finishOrder": lambda a, p: {"orders": a.context["orders"] + 1},
    "recordPayment": lambda a, p: {"paid": a.context["paid"] + a.event["amount"],
                                   "attempts": a.context["attempts"] + 1},
    "resetAttempts": lambda a, p: {"attempts": 0},
    "note": lambda a, p: {"notes": a.context["notes"] + len(p["region"])},
    "reserve": lambda a, p: {"reserved": a.context["reserved"] + a.event["qty"]},
    "setMethod": lambda a, p: {"method": a.event["method"]},
    "resetOrder": lambda a, p: dict(_EMPTY_ORDER),
}

TIMERS_ASSIGNS: dict[str, Function] = {
    "begin": lambda a, p: {"waits": a.context["waits"] + 1},
    "expire": lambda a, p: {"expiries": a.context["expiries"] + 1},
    "kick": lambda a, p: {"kicks": a.context["kicks"] + 1},
    "clear": lambda a, p: {"polls": 0, "kicks": 0, "expiries": 0, "waits": 0},
    "countPoll": lambda a, p: {"polls": a.context["polls"] + 1},
    "countWait": lambda a, p: {"waits": a.context["waits"] + 1},
}

TIMERS_DELAYS: dict[str, Any] = {
    "timeout": 1030,
    "backoff": lambda a, p: 200 + 100 * a.context["expiries"],
}

#: By the spec's ``setup`` name: guards, assignments (partial context updates), delays.
IMPLEMENTATIONS: Mapping[str, Mapping[str, Mapping[str, Any]]] = {
    "workflow": {"guards": WORKFLOW_GUARDS, "assigns": WORKFLOW_ASSIGNS, "delays": {}},
    "timers": {"guards": {}, "assigns": TIMERS_ASSIGNS, "delays": TIMERS_DELAYS},
}
