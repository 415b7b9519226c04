"""statekit: the benchmark's XState config, driven two ways.

``--api transition``: the pure ``statekit.transition(machine, snapshot, event)`` in a loop.
``--api actor``: a started ``statekit.Actor`` and ``actor.send(event)``.
Events are ``{"type": ...}`` dicts, built once, as XState takes them.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib.metadata import version
from typing import Any

from harness import leaves_of_value, main

import statekit


def _value_of(snapshot: Any) -> Any:
    return snapshot["value"] if isinstance(snapshot, dict) else snapshot.value


class TransitionInstance:
    def __init__(self, machine: Any) -> None:
        self.machine = machine
        self.snapshot, _ = statekit.initial_transition(machine)

    def run(self, events: Sequence[Any]) -> None:
        transition = statekit.transition
        machine = self.machine
        snapshot = self.snapshot
        for event in events:
            snapshot, _ = transition(machine, snapshot, event)
        self.snapshot = snapshot

    def leaves(self) -> list[str]:
        return leaves_of_value(_value_of(self.snapshot))


class ActorInstance:
    def __init__(self, machine: Any) -> None:
        self.actor = statekit.Actor(machine)
        self.actor.start()

    def run(self, events: Sequence[Any]) -> None:
        send = self.actor.send
        for event in events:
            send(event)

    def leaves(self) -> list[str]:
        return leaves_of_value(_value_of(self.actor.get_snapshot()))


class StatekitPeer:
    version = version("statekit")

    def __init__(self, spec: dict[str, Any], api: str) -> None:
        self.machine = statekit.create_machine(spec["config"])
        self.instance_class = {"transition": TransitionInstance, "actor": ActorInstance}[api]
        self.label = {"transition": "statekit transition()", "actor": "statekit Actor"}[api]

    def encode(self, event_type: str) -> dict[str, str]:
        return {"type": event_type}

    def new_instance(self) -> TransitionInstance | ActorInstance:
        return self.instance_class(self.machine)


def _split_api(argv: list[str]) -> tuple[str, list[str]]:
    if "--api" not in argv:
        return "actor", argv
    at = argv.index("--api")
    return argv[at + 1], argv[:at] + argv[at + 2 :]


if __name__ == "__main__":
    api, rest = _split_api(sys.argv[1:])
    main(lambda spec: StatekitPeer(spec, api), rest)
