"""sismic 1.6.14: YAML statecharts, run with Interpreter.queue + execute_once.

Expresses everything in the player machine: compound, orthogonal (parallel) and deep history
states. sismic state names are global, so the names are the XState keys as they are (they are
unique in both machines).
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib.metadata import version
from typing import Any

from harness import main, require_ported
from sismic.interpreter import Interpreter
from sismic.io import import_from_yaml
from sismic.model import Statechart

FLAT = """
statechart:
  name: flat
  root state:
    name: flat
    initial: a
    states:
    - {name: a, transitions: [{event: NEXT, target: b}]}
    - {name: b, transitions: [{event: NEXT, target: c}]}
    - {name: c, transitions: [{event: NEXT, target: a}]}
"""

PLAYER = """
statechart:
  name: player
  root state:
    name: player
    initial: "off"
    states:
    - name: "off"
      transitions:
      - {event: POWER, target: hist}
    - name: powered
      initial: active
      transitions:
      - {event: POWER, target: "off"}
      - {event: MENU, target: settings}
      states:
      - {name: hist, type: deep history, memory: active}
      - name: active
        parallel states:
        - name: playback
          initial: stopped
          states:
          - name: stopped
            transitions: [{event: PLAY, target: playing}]
          - name: playing
            initial: normal
            transitions: [{event: PAUSE, target: paused}, {event: STOP, target: stopped}]
            states:
            - {name: normal, transitions: [{event: FAST, target: fast}]}
            - {name: fast, transitions: [{event: FAST, target: normal}]}
          - name: paused
            transitions: [{event: PLAY, target: playing}, {event: STOP, target: stopped}]
        - name: volume
          initial: unmuted
          states:
          - {name: unmuted, transitions: [{event: MUTE, target: muted}]}
          - {name: muted, transitions: [{event: MUTE, target: unmuted}]}
    - name: settings
      transitions:
      - {event: BACK, target: hist}
      - {event: POWER, target: "off"}
"""


class SismicInstance:
    def __init__(self, statechart: Statechart) -> None:
        self.statechart = statechart
        self.interpreter = Interpreter(statechart)
        self.interpreter.execute_once()  # enters the initial configuration

    def run(self, events: Sequence[Any]) -> None:
        queue = self.interpreter.queue
        execute_once = self.interpreter.execute_once
        for event in events:
            queue(event)
            execute_once()

    def leaves(self) -> list[str]:
        chart = self.statechart
        paths = []
        for name in self.interpreter.configuration:
            if chart.children_for(name):
                continue
            path = [name]
            parent = chart.parent_for(name)
            while parent is not None and parent != chart.root:
                path.append(parent)
                parent = chart.parent_for(parent)
            paths.append(".".join(reversed(path)))
        return paths


#: The benchmark machines written for this library (the others are reported as not ported).
PORTED = ("flat", "player")


class SismicPeer:
    label = "sismic Interpreter"
    version = version("sismic")

    def __init__(self, spec: dict[str, Any]) -> None:
        require_ported(spec, PORTED)
        self.statechart = import_from_yaml({"flat": FLAT, "player": PLAYER}[spec["name"]])

    def encode(self, event_type: str) -> str:
        return event_type

    def new_instance(self) -> SismicInstance:
        return SismicInstance(self.statechart)


if __name__ == "__main__":
    main(SismicPeer)
