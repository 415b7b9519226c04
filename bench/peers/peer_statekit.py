"""statekit: the benchmark's XState config, driven two ways.

``--api transition``: the pure ``statekit.transition(machine, snapshot, event)`` in a loop.
``--api actor``: a started ``statekit.Actor`` and ``actor.send(event)``.
``--guards js``: the machine's named guards run as JavaScript in statekit's QuickJS sandbox
(the spec's JavaScript sources, as ``setup({guards})`` read from XState code gives them)
instead of the Python implementations in implementations.py.
Events are dicts, built once, as XState takes them. ``$advance`` items move the actor's
virtual clock; with the pure API, a small scheduler keeps the delayed ``xstate.raise``
actions ``transition()`` returns and drops them on ``xstate.cancel`` (what XState's
scheduler does). A spec with ``"cold": true`` gets a freshly compiled machine per instance,
so no repeat finds caches that an earlier one filled.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib.metadata import version
from typing import Any

from harness import ADVANCE, NotPorted, event_object, leaves_of_value, main
from implementations import IMPLEMENTATIONS

import statekit
from statekit.engine.implementations import Assign, Implementations
from statekit.engine.inline import implementations_from_code
from statekit.engine.sandbox import JsSandbox


def _value_of(snapshot: Any) -> Any:
    return snapshot["value"] if isinstance(snapshot, dict) else snapshot.value


class TransitionInstance:
    def __init__(self, machine: Any) -> None:
        self.machine = machine
        self.now = 0.0
        self.sequence = 0
        self.timers: dict[str, tuple[float, int, Any]] = {}  # send id -> (due, sequence, event)
        self.snapshot, actions = statekit.initial_transition(machine)
        self._schedule(actions)

    def _schedule(self, actions: Sequence[Any]) -> None:
        for action in actions:
            kind = action.type
            if kind == "xstate.raise" and "delay" in action.params:
                params = action.params
                self.timers[params["id"]] = (self.now + params["delay"], self.sequence, params["event"])
                self.sequence += 1
            elif kind == "xstate.cancel":
                self.timers.pop(action.params["sendId"], None)

    def _advance(self, ms: float) -> None:
        target = self.now + ms
        while self.timers:
            due, _, send_id = min((due, seq, key) for key, (due, seq, _e) in self.timers.items())
            if due > target:
                break
            event = self.timers.pop(send_id)[2]
            self.now = due
            self.snapshot, actions = statekit.transition(self.machine, self.snapshot, event)
            if actions:
                self._schedule(actions)
        self.now = target

    def run(self, events: Sequence[Any]) -> None:
        transition = statekit.transition
        machine = self.machine
        snapshot = self.snapshot
        for event in events:
            if event["type"] == ADVANCE:
                self.snapshot = snapshot
                self._advance(event["ms"])
                snapshot = self.snapshot
                continue
            snapshot, actions = transition(machine, snapshot, event)
            if actions:
                self.snapshot = snapshot
                self._schedule(actions)
        self.snapshot = snapshot

    def leaves(self) -> list[str]:
        return leaves_of_value(_value_of(self.snapshot))

    def context(self) -> Any:
        return self.snapshot.context


class ActorInstance:
    def __init__(self, machine: Any) -> None:
        self.actor = statekit.Actor(machine)
        self.actor.start()

    def run(self, events: Sequence[Any]) -> None:
        send = self.actor.send
        advance = self.actor.clock.advance
        for event in events:
            if event["type"] == ADVANCE:
                advance(event["ms"])
            else:
                send(event)

    def leaves(self) -> list[str]:
        return leaves_of_value(_value_of(self.actor.get_snapshot()))

    def context(self) -> Any:
        return self.actor.get_snapshot().context


def implementations(spec: dict[str, Any], guards: str) -> Implementations | None:
    """The machine's named implementations: Python, or with ``guards == "js"`` JS guards."""
    name = spec.get("setup")
    if name is None:
        return None
    python = IMPLEMENTATIONS[name]
    actions: dict[str, Any] = {key: Assign(function) for key, function in python["assigns"].items()}
    actions.update(spec["implementations"].get("builtins", {}))
    if guards == "js":
        # A run's sandbox has a total time budget; a benchmark run is longer than a simulation.
        sandbox = JsSandbox(total_time_limit=float("inf"))
        sources = {key: {"code": code} for key, code in spec["implementations"]["guards"].items()}
        js_guards = implementations_from_code({"guards": sources}, sandbox).guards
        return Implementations(guards=js_guards, actions=actions, delays=python["delays"], evaluator=sandbox)
    return Implementations(guards=python["guards"], actions=actions, delays=python["delays"])


class StatekitPeer:
    version = version("statekit")

    def __init__(self, spec: dict[str, Any], api: str, guards: str) -> None:
        if guards == "js" and not spec.get("implementations", {}).get("guards"):
            raise NotPorted("this machine has no guards to run as JavaScript")
        self.config = spec["config"]
        self.implementations = implementations(spec, guards)
        self.cold = bool(spec.get("cold"))
        self.machine = statekit.create_machine(self.config, self.implementations)
        self.instance_class = {"transition": TransitionInstance, "actor": ActorInstance}[api]
        label = {"transition": "statekit transition()", "actor": "statekit Actor"}[api]
        self.label = f"{label}, JS guards" if guards == "js" else label

    def encode(self, item: Any) -> dict[str, Any]:
        return event_object(item)

    def new_instance(self) -> TransitionInstance | ActorInstance:
        machine = self.machine
        if self.cold:
            machine = statekit.create_machine(self.config, self.implementations)
        return self.instance_class(machine)


def _option(argv: list[str], name: str, default: str) -> tuple[str, list[str]]:
    if name not in argv:
        return default, argv
    at = argv.index(name)
    return argv[at + 1], argv[:at] + argv[at + 2 :]


if __name__ == "__main__":
    api, rest = _option(sys.argv[1:], "--api", "actor")
    guards, rest = _option(rest, "--guards", "python")
    main(lambda spec: StatekitPeer(spec, api, guards), rest)
