"""xstate-statemachine 0.11.0: the same XState JSON config, run by its ``SyncInterpreter``.

Reads the benchmark's XState config unchanged (compound, parallel and deep history all work).
Events are sent as type strings, its cheapest form.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib.metadata import version
from typing import Any

from harness import main
from xstate_statemachine import SyncInterpreter, create_machine


class SyncInterpreterInstance:
    def __init__(self, machine: Any, root_id: str) -> None:
        self.interpreter = SyncInterpreter(machine).start()
        self.root_prefix = root_id + "."

    def run(self, events: Sequence[Any]) -> None:
        send = self.interpreter.send
        for event in events:
            send(event)

    def leaves(self) -> list[str]:
        return [
            state_id.removeprefix(self.root_prefix)
            for state_id in self.interpreter.current_state_ids
        ]


class XstateStatemachinePeer:
    label = "xstate-statemachine SyncInterpreter"
    version = version("xstate-statemachine")

    def __init__(self, spec: dict[str, Any]) -> None:
        self.config = spec["config"]
        self.machine = create_machine(self.config)

    def encode(self, event_type: str) -> str:
        return event_type

    def new_instance(self) -> SyncInterpreterInstance:
        return SyncInterpreterInstance(self.machine, self.config["id"])


if __name__ == "__main__":
    main(XstateStatemachinePeer)
