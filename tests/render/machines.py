"""Machines the render tests share: nested, parallel, history, hostile labels, and generated sizes."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from statekit.extract import extract_machines
from statekit.model.core import MachineModel
from statekit.tools.inputs import load_model

XSTATE_SUITE = Path(__file__).resolve().parents[1] / "oracle" / "inline" / "xstate"

HOSTILE_EVENT = "<script>alert(1)</script>"
HOSTILE_STATE = '<img src=x onerror="window.parent.pwned=1;window.pwned=1">'

PLAYER: dict[str, Any] = {
    "id": "player",
    "initial": "paused",
    "states": {
        "paused": {
            "on": {"PLAY": {"target": "playing", "guard": "hasTrack", "actions": ["startClock"]}}
        },
        "playing": {
            "type": "parallel",
            "on": {"STOP": "stopped"},
            "states": {
                "audio": {
                    "initial": "on",
                    "states": {
                        "on": {"on": {"MUTE": "off"}},
                        "off": {"on": {"UNMUTE": "on"}},
                        "hist": {"type": "history", "history": "deep"},
                    },
                },
                "video": {
                    "initial": "hd",
                    "states": {
                        "hd": {"after": {"1000": "sd"}},
                        "sd": {"always": {"target": "hd", "guard": "fastNet"}},
                    },
                },
            },
        },
        "stopped": {"type": "final", "entry": ["log"]},
        HOSTILE_STATE: {
            "on": {HOSTILE_EVENT: {"target": "paused", "actions": ['<b>x</b>&"q\\N']}}
        },
    },
}


def chain_machine(states: int, group: int = 10) -> dict[str, Any]:
    """`states` states in compound groups of `group`, each group a chain with a way out and back.

    Every tenth group is parallel with two regions, so sizes exercise clusters of both kinds.
    """
    groups: dict[str, Any] = {}
    made = 0
    index = 0
    while made < states:
        size = min(group, states - made)
        names = [f"s{made + offset}" for offset in range(size)]
        children: dict[str, Any] = {}
        for position, name in enumerate(names):
            following = names[(position + 1) % len(names)]
            children[name] = {"on": {f"NEXT{position}": following, "RESET": f"#{names[0]}"}}
        children[names[0]]["id"] = names[0]
        name = f"g{index}"
        next_group = f"g{index + 1}"
        if index % 10 == 9 and size >= 4:
            half = size // 2
            left = {key: children[key] for key in names[:half]}
            right = {key: children[key] for key in names[half:]}
            for region in (left, right):
                for child in region.values():
                    child["on"] = {
                        event: target
                        for event, target in child["on"].items()
                        if target.lstrip("#") in region
                    }
            groups[name] = {
                "type": "parallel",
                "states": {
                    "left": {"initial": names[0], "states": left},
                    "right": {"initial": names[half], "states": right},
                },
                "on": {"DONE": next_group},
            }
        else:
            groups[name] = {"initial": names[0], "states": children, "on": {"DONE": next_group}}
        made += size
        index += 1
    last = f"g{index - 1}"
    groups[last]["on"] = {"DONE": "g0"}
    return {"id": f"chain{states}", "initial": "g0", "states": groups}


def wide_parallel(regions: int) -> dict[str, Any]:
    """A parallel root of `regions` regions, each a three-state cycle."""
    states = {}
    for number in range(regions):
        states[f"region{number}"] = {
            "initial": "idle",
            "states": {
                "idle": {"on": {f"START_{number}": "busy"}},
                "busy": {"on": {f"FINISH_{number}": "idle", f"FAIL_{number}": "failed"}},
                "failed": {"on": {f"RETRY_{number}": "busy"}},
            },
        }
    return {"id": "wide", "type": "parallel", "states": states}


def many_loops() -> dict[str, Any]:
    """A todo list's shape: the root reacts to many events without leaving its state."""
    events = ["newTodo.change", "newTodo.commit", "todo.commit", "todo.delete", "filter.change", "todo.mark"]
    return {
        "id": "todos",
        "initial": "ready",
        "states": {
            "ready": {
                "on": {
                    **{event: {"actions": "assign"} for event in events},
                    "REFRESH": {"target": "ready", "reenter": True},
                    "LOAD": "loading",
                }
            },
            "loading": {"on": {"LOADED": "ready", "PING": {"actions": "pong"}}},
        },
        "on": {"CLEAR": {"actions": "clearAll"}},
    }


@cache
def xstate_suite_machines() -> list[tuple[str, MachineModel]]:
    """Every distinct machine of XState's test suite with five or more states."""
    seen: set[str] = set()
    found: list[tuple[str, MachineModel]] = []
    for path in sorted(XSTATE_SUITE.glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8")):
            for machine in extract_machines(case["source"], "case.ts")["machines"]:
                key = json.dumps(machine["config"], sort_keys=True)
                if key in seen:
                    continue
                seen.add(key)
                try:
                    model = load_model(machine["config"])
                except Exception:  # the suite also holds machines XState itself rejects
                    continue
                if len(model.nodes) >= 5:
                    found.append((case["name"], model))
    return found
