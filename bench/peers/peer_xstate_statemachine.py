"""xstate-statemachine 0.11.0: the same XState JSON config, run by its ``SyncInterpreter``.

Reads the benchmark's XState config unchanged (compound, parallel and deep history all work).
Events are sent as type strings, its cheapest form, or as event objects when they carry a
payload. The machines with implementations get them in its own style (``MachineLogic``:
guards ``(context, event, params)``, actions ``(interpreter, context, event, action)`` that
update the context in place, delays in ms or ``(context, event)``); the named built-in
actions of the timers machine become its own ``xstate.raise`` / ``xstate.cancel`` objects
(``params: {event, delay, id}``). ``$advance`` items move its ``SimulatedClock``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from importlib.metadata import version
from typing import Any

from harness import ADVANCE, main
from xstate_statemachine import MachineLogic, SimulatedClock, SyncInterpreter, create_machine


def _payload(event: Any) -> dict[str, Any]:
    return event.data if isinstance(getattr(event, "data", None), dict) else {}


def _updater(update: Callable[[dict[str, Any], dict[str, Any], Any], dict[str, Any]]) -> Any:
    def action(_interpreter: Any, context: dict[str, Any], event: Any, definition: Any) -> None:
        context.update(update(context, _payload(event), definition.params))

    return action


# It passes params only to guards that have them (a guard without params takes two arguments).
WORKFLOW_GUARDS: dict[str, Callable[..., bool]] = {
    "underLimit": lambda c, e, p: c["items"] < p["max"],
    "totalAtLeast": lambda c, e, p: c["total"] >= p["min"],
    "coversBalance": lambda c, e: _payload(e)["amount"] >= c["total"] - c["paid"],
    "attemptsBelow": lambda c, e, p: c["attempts"] + 1 < p["max"],
    "reservesAll": lambda c, e: c["reserved"] + _payload(e)["qty"] >= c["items"],
    "positive": lambda c, e, p: _payload(e)[p["field"]] > 0,
    "methodAllowed": lambda c, e, p: _payload(e)["method"] in p["methods"],
}
_EMPTY_ORDER = {"items": 0, "total": 0, "paid": 0, "attempts": 0, "reserved": 0, "method": None,
                "notes": 0, "rejected": 0, "orders": 0}
WORKFLOW_ACTIONS = {
    "addItem": _updater(lambda c, e, p: {"items": c["items"] + 1, "total": c["total"] + e["price"]}),
    "reject": _updater(lambda c, e, p: {"rejected": c["rejected"] + 1}),
    "startCheckout": _updater(lambda c, e, p: {"attempts": 0, "paid": 0}),
    "cancelOrder": _updater(lambda c, e, p: {"items": 0, "total": 0, "rejected": c["rejected"] + 1}),
    "finishOrder": _updater(lambda c, e, p: {"orders": c["orders"] + 1}),
    "recordPayment": _updater(lambda c, e, p: {"paid": c["paid"] + e["amount"], "attempts": c["attempts"] + 1}),
    "resetAttempts": _updater(lambda c, e, p: {"attempts": 0}),
    "note": _updater(lambda c, e, p: {"notes": c["notes"] + len(p["region"])}),
    "reserve": _updater(lambda c, e, p: {"reserved": c["reserved"] + e["qty"]}),
    "setMethod": _updater(lambda c, e, p: {"method": e["method"]}),
    "resetOrder": _updater(lambda c, e, p: dict(_EMPTY_ORDER)),
}
TIMERS_ACTIONS = {
    "begin": _updater(lambda c, e, p: {"waits": c["waits"] + 1}),
    "expire": _updater(lambda c, e, p: {"expiries": c["expiries"] + 1}),
    "kick": _updater(lambda c, e, p: {"kicks": c["kicks"] + 1}),
    "clear": _updater(lambda c, e, p: {"polls": 0, "kicks": 0, "expiries": 0, "waits": 0}),
    "countPoll": _updater(lambda c, e, p: {"polls": c["polls"] + 1}),
    "countWait": _updater(lambda c, e, p: {"waits": c["waits"] + 1}),
}
TIMERS_DELAYS: dict[str, Any] = {"timeout": 1030, "backoff": lambda c, e: 200 + 100 * c["expiries"]}

LOGIC = {
    "workflow": lambda: MachineLogic(actions=WORKFLOW_ACTIONS, guards=WORKFLOW_GUARDS),
    "timers": lambda: MachineLogic(actions=TIMERS_ACTIONS, delays=TIMERS_DELAYS),
}


def _own_builtins(node: Any, builtins: dict[str, dict[str, Any]]) -> Any:
    """The config with named built-in actions written as this library's action objects."""
    if isinstance(node, dict):
        name = node.get("type")
        if isinstance(name, str) and name in builtins and len(node) == 1:
            builtin = builtins[name]
            return {"type": builtin["type"], "params": {k: v for k, v in builtin.items() if k != "type"}}
        return {key: _own_builtins(value, builtins) for key, value in node.items()}
    if isinstance(node, list):
        return [_own_builtins(item, builtins) for item in node]
    return node


class SyncInterpreterInstance:
    def __init__(self, machine: Any, root_id: str) -> None:
        self.clock = SimulatedClock()
        self.interpreter = SyncInterpreter(machine, clock=self.clock).start()
        self.root_prefix = root_id + "."

    def run(self, events: Sequence[Any]) -> None:
        send = self.interpreter.send
        increment = self.clock.increment
        for event in events:
            if isinstance(event, dict) and event["type"] == ADVANCE:
                increment(event["ms"])
            else:
                send(event)

    def leaves(self) -> list[str]:
        return [
            state_id.removeprefix(self.root_prefix)
            for state_id in self.interpreter.current_state_ids
        ]

    def context(self) -> Any:
        return dict(self.interpreter.context)


class XstateStatemachinePeer:
    label = "xstate-statemachine SyncInterpreter"
    version = version("xstate-statemachine")

    def __init__(self, spec: dict[str, Any]) -> None:
        self.config = copy.deepcopy(spec["config"])
        setup = spec.get("setup")
        logic = LOGIC[setup]() if setup else None
        builtins = spec.get("implementations", {}).get("builtins")
        if builtins:
            self.config = _own_builtins(self.config, builtins)
        self.machine = create_machine(self.config, logic=logic) if logic else create_machine(self.config)

    def encode(self, item: Any) -> Any:
        if isinstance(item, str) or (isinstance(item, dict) and len(item) == 1):
            return item if isinstance(item, str) else item["type"]
        return item

    def new_instance(self) -> SyncInterpreterInstance:
        return SyncInterpreterInstance(self.machine, self.config["id"])


if __name__ == "__main__":
    main(XstateStatemachinePeer)
