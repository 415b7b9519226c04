"""transitions 0.9.3: ``Machine`` for the flat cycle, ``HierarchicalMachine`` for the player.

transitions has nested and parallel states but no history states. The player's deep history
is emulated the way a transitions user would write it: ``powered`` gets an ``on_exit``
callback that remembers the configuration, and the two transitions into ``powered.hist``
(POWER from off, BACK from settings) target ``powered`` with an ``after`` callback that puts
the remembered configuration back with ``set_state`` (which does not run entry callbacks;
this machine has none). Events are dispatched with ``model.trigger(name)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib.metadata import version
from typing import Any

from harness import main, require_ported
from transitions import Machine
from transitions.extensions.nesting import HierarchicalMachine

SEPARATOR = "_"
PLAYBACK = "powered_active_playback"
VOLUME = "powered_active_volume"

PLAYER_STATES: list[Any] = [
    "off",
    {
        "name": "powered",
        "initial": "active",
        "on_exit": "remember_history",
        "children": [
            {
                "name": "active",
                "parallel": [
                    {
                        "name": "playback",
                        "initial": "stopped",
                        "children": [
                            "stopped",
                            {
                                "name": "playing",
                                "initial": "normal",
                                "children": ["normal", "fast"],
                            },
                            "paused",
                        ],
                    },
                    {"name": "volume", "initial": "unmuted", "children": ["unmuted", "muted"]},
                ],
            }
        ],
    },
    "settings",
]

PLAYER_TRANSITIONS: list[dict[str, Any]] = [
    {"trigger": "POWER", "source": "off", "dest": "powered", "after": "restore_history"},
    {"trigger": "POWER", "source": ["powered", "settings"], "dest": "off"},
    {"trigger": "MENU", "source": "powered", "dest": "settings"},
    {"trigger": "BACK", "source": "settings", "dest": "powered", "after": "restore_history"},
    {
        "trigger": "PLAY",
        "source": [f"{PLAYBACK}_stopped", f"{PLAYBACK}_paused"],
        "dest": f"{PLAYBACK}_playing",
    },
    {"trigger": "PAUSE", "source": f"{PLAYBACK}_playing", "dest": f"{PLAYBACK}_paused"},
    {
        "trigger": "STOP",
        "source": [f"{PLAYBACK}_playing", f"{PLAYBACK}_paused"],
        "dest": f"{PLAYBACK}_stopped",
    },
    {"trigger": "FAST", "source": f"{PLAYBACK}_playing_normal", "dest": f"{PLAYBACK}_playing_fast"},
    {"trigger": "FAST", "source": f"{PLAYBACK}_playing_fast", "dest": f"{PLAYBACK}_playing_normal"},
    {"trigger": "MUTE", "source": f"{VOLUME}_unmuted", "dest": f"{VOLUME}_muted"},
    {"trigger": "MUTE", "source": f"{VOLUME}_muted", "dest": f"{VOLUME}_unmuted"},
]


class FlatModel:
    pass


class PlayerModel:
    """The model object; holds the emulated deep history of ``powered``."""

    def __init__(self) -> None:
        self.remembered: Any = None
        self.machine: HierarchicalMachine | None = None

    def remember_history(self) -> None:
        self.remembered = self.state  # type: ignore[attr-defined]

    def restore_history(self) -> None:
        if self.remembered is not None and self.machine is not None:
            self.machine.set_state(self.remembered, model=self)


class TransitionsInstance:
    def __init__(self, model: Any) -> None:
        self.model = model

    def run(self, events: Sequence[Any]) -> None:
        trigger = self.model.trigger
        for event in events:
            trigger(event)

    def leaves(self) -> list[str]:
        state = self.model.state
        states = state if isinstance(state, list) else [state]
        return [name.replace(SEPARATOR, ".") for name in states]


#: The benchmark machines written for this library (the others are reported as not ported).
PORTED = ("flat", "player")


class TransitionsPeer:
    version = version("transitions")

    def __init__(self, spec: dict[str, Any]) -> None:
        require_ported(spec, PORTED)
        self.name = spec["name"]
        self.label = (
            "transitions Machine" if self.name == "flat" else "transitions HierarchicalMachine"
        )

    def encode(self, event_type: str) -> str:
        return event_type

    def new_instance(self) -> TransitionsInstance:
        if self.name == "flat":
            flat_model = FlatModel()
            Machine(
                model=flat_model,
                states=["a", "b", "c"],
                transitions=[["NEXT", "a", "b"], ["NEXT", "b", "c"], ["NEXT", "c", "a"]],
                initial="a",
                auto_transitions=False,
            )
            return TransitionsInstance(flat_model)
        model = PlayerModel()
        model.machine = HierarchicalMachine(
            model=model,
            states=PLAYER_STATES,
            transitions=PLAYER_TRANSITIONS,
            initial="off",
            auto_transitions=False,
        )
        return TransitionsInstance(model)


if __name__ == "__main__":
    main(TransitionsPeer)
