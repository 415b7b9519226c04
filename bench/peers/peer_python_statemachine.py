"""python-statemachine 3.2.2: ``StateChart`` classes (SCXML semantics), run with ``send``.

Expresses everything in the player machine: ``State.Compound``, ``State.Parallel`` and a deep
``HistoryState`` whose default transition goes to ``active``.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib.metadata import version
from typing import Any

from harness import main, require_ported
from statemachine import HistoryState, State, StateChart


class Flat(StateChart):
    a = State(initial=True)
    b = State()
    c = State()

    NEXT = a.to(b) | b.to(c) | c.to(a)


class Player(StateChart):
    off = State(initial=True)

    class powered(State.Compound):
        class active(State.Parallel):
            class playback(State.Compound):
                stopped = State(initial=True)

                class playing(State.Compound):
                    normal = State(initial=True)
                    fast = State()

                    fast_toggle = normal.to(fast, event="FAST") | fast.to(normal, event="FAST")

                paused = State()

                play = stopped.to(playing, event="PLAY") | paused.to(playing, event="PLAY")
                pause = playing.to(paused, event="PAUSE")
                stop = playing.to(stopped, event="STOP") | paused.to(stopped, event="STOP")

            class volume(State.Compound):
                unmuted = State(initial=True)
                muted = State()

                mute = unmuted.to(muted, event="MUTE") | muted.to(unmuted, event="MUTE")

        hist = HistoryState(type="deep")
        history_default = hist.to(active)

    settings = State()

    power = (
        off.to(powered.hist, event="POWER")
        | powered.to(off, event="POWER")
        | settings.to(off, event="POWER")
    )
    menu = powered.to(settings, event="MENU")
    back = settings.to(powered.hist, event="BACK")


class StateChartInstance:
    def __init__(self, chart: StateChart) -> None:
        self.chart = chart

    def run(self, events: Sequence[Any]) -> None:
        send = self.chart.send
        for event in events:
            send(event)

    def leaves(self) -> list[str]:
        paths = []
        for state in self.chart.configuration:
            if not state.is_atomic:
                continue
            path = [state.id]
            parent = state.parent
            while parent is not None:
                path.append(parent.id)
                parent = parent.parent
            paths.append(".".join(reversed(path)))
        return paths


#: The benchmark machines written for this library (the others are reported as not ported).
PORTED = ("flat", "player")


class PythonStatemachinePeer:
    label = "python-statemachine StateChart"
    version = version("python-statemachine")

    def __init__(self, spec: dict[str, Any]) -> None:
        require_ported(spec, PORTED)
        self.chart_class = {"flat": Flat, "player": Player}[spec["name"]]

    def encode(self, event_type: str) -> str:
        return event_type

    def new_instance(self) -> StateChartInstance:
        return StateChartInstance(self.chart_class())


if __name__ == "__main__":
    main(PythonStatemachinePeer)
