"""The corpus of machines for `generate_graph_paths`, checked against real @xstate/graph.

`MACHINES` maps a name to a machine config (statekit's JSON encoding, docs/machine-format.md)
plus optional traversal options; `cases()` runs each with both algorithms and adds the option
variants in `VARIANTS`. `python tests/oracle/graph/corpus.py` prints the cases as JSON, the
input of `paths.mjs`. Named guards are constants in both worlds (a case's `guards`, else true).
"""

from __future__ import annotations

import json
import random
import sys
from typing import Any

Config = dict[str, Any]


def raise_(event_type: str, **options: Any) -> dict[str, Any]:
    return {"type": "xstate.raise", "event": {"type": event_type}, **options}


def assign(**values: Any) -> dict[str, Any]:
    return {"type": "xstate.assign", "assignment": values}


def chain(count: int, event: str = "NEXT", *, back: bool = False, final: bool = False) -> Config:
    """s0 -> s1 -> ... -> s{count-1} on `event` (and PREV back when `back`)."""
    states: dict[str, Any] = {}
    for index in range(count):
        on: dict[str, Any] = {}
        if index < count - 1:
            on[event] = f"s{index + 1}"
        if back and index > 0:
            on["PREV"] = f"s{index - 1}"
        states[f"s{index}"] = {"on": on} if on else {}
    if final:
        states[f"s{count - 1}"]["type"] = "final"
    return {"id": "chain", "initial": "s0", "states": states}


def grid(width: int, height: int) -> Config:
    """A width x height grid of states moved through with UP / DOWN / LEFT / RIGHT."""
    states: dict[str, Any] = {}
    for row in range(height):
        for column in range(width):
            on: dict[str, str] = {}
            if row > 0:
                on["UP"] = f"r{row - 1}c{column}"
            if row < height - 1:
                on["DOWN"] = f"r{row + 1}c{column}"
            if column > 0:
                on["LEFT"] = f"r{row}c{column - 1}"
            if column < width - 1:
                on["RIGHT"] = f"r{row}c{column + 1}"
            states[f"r{row}c{column}"] = {"on": on}
    return {"id": "grid", "initial": "r0c0", "states": states}


def tree(depth: int, fanout: int) -> Config:
    """A flat machine shaped as a tree: from each state, events C0..C{fanout-1} go to its children."""
    states: dict[str, Any] = {}

    def add(name: str, level: int) -> None:
        on: dict[str, str] = {}
        if level < depth:
            for branch in range(fanout):
                child = f"{name}_{branch}"
                on[f"C{branch}"] = child
                add(child, level + 1)
        on["ROOT"] = "t"
        states[name] = {"on": on}

    add("t", 0)
    return {"id": "tree", "initial": "t", "states": states}


def random_flat(seed: int, count: int, events: int, density: float) -> Config:
    """A random flat machine: each (state, event) has a transition with probability `density`."""
    rng = random.Random(seed)
    names = [f"q{index}" for index in range(count)]
    states: dict[str, Any] = {}
    for name in names:
        on: dict[str, Any] = {}
        for event in range(events):
            if rng.random() < density:
                target = rng.choice(names)
                on[f"E{event}"] = target if rng.random() < 0.8 else {"target": target, "actions": ["act"]}
        states[name] = {"on": on}
    return {"id": f"rand{seed}", "initial": "q0", "states": states}


def nested_random(seed: int) -> Config:
    """A random machine of compound and parallel states with cross-level targets."""
    rng = random.Random(seed)
    ids: list[str] = []

    def build(path: list[str], depth: int) -> dict[str, Any]:
        keys = [f"{'abcdef'[depth]}{index}" for index in range(rng.randint(2, 3))]
        node: dict[str, Any] = {"states": {}}
        if depth > 0 and rng.random() < 0.3:
            node["type"] = "parallel"
        else:
            node["initial"] = keys[0]
        for key in keys:
            child_path = [*path, key]
            ids.append(".".join(child_path))
            node["states"][key] = build(child_path, depth + 1) if depth < 2 and rng.random() < 0.5 else {}
        return node

    root = build([], 0)

    def add_transitions(node: dict[str, Any]) -> None:
        for child in node.get("states", {}).values():
            on: dict[str, Any] = {}
            for event in ("A", "B", "C"):
                if rng.random() < 0.4:
                    on[event] = "#m." + rng.choice(ids)
            if on:
                child["on"] = on
            add_transitions(child)

    add_transitions(root)
    return {"id": "m", **root}


PLAYER: Config = {"id": "player", "initial": "paused", "states": {
    "paused": {"on": {"PLAY": "playing"}},
    "playing": {"on": {"PAUSE": "paused", "STOP": "stopped"}},
    "stopped": {"type": "final"}}}

MACHINES: dict[str, Config] = {
    # -- flat --------------------------------------------------------------------------------
    "player": PLAYER,
    "traffic_light": {"id": "light", "initial": "green", "states": {
        "green": {"on": {"TIMER": "yellow"}}, "yellow": {"on": {"TIMER": "red"}},
        "red": {"on": {"TIMER": "green"}}}},
    "toggle": {"id": "toggle", "initial": "inactive", "states": {
        "inactive": {"on": {"TOGGLE": "active"}}, "active": {"on": {"TOGGLE": "inactive"}}}},
    "door": {"id": "door", "initial": "closed", "states": {
        "closed": {"on": {"OPEN": "opened", "LOCK": "locked"}},
        "opened": {"on": {"CLOSE": "closed"}},
        "locked": {"on": {"UNLOCK": "closed", "BREAK": "broken"}},
        "broken": {"type": "final"}}},
    "single_state": {"id": "one", "initial": "only", "states": {"only": {}}},
    "unreachable": {"id": "u", "initial": "a", "states": {
        "a": {"on": {"GO": "b"}}, "b": {}, "island": {"on": {"BACK": "a"}}}},
    "two_events_same_target": {"id": "two", "initial": "a", "states": {
        "a": {"on": {"X": "b", "Y": "b", "Z": "c"}}, "b": {"on": {"Z": "c"}}, "c": {"on": {"X": "a"}}}},
    "complete_graph_4": {"id": "k4", "initial": "a", "states": {
        key: {"on": {f"TO_{other.upper()}": other for other in "abcd" if other != key}} for key in "abcd"}},
    "self_loops": {"id": "loops", "initial": "a", "states": {
        "a": {"on": {"STAY": "a", "GO": "b", "TICK": {"actions": ["tick"]}}},
        "b": {"on": {"STAY": {"target": "b", "reenter": True}, "NOOP": {}, "BACK": "a"}}}},
    "forbidden_only": {"id": "f", "initial": "a", "states": {
        "a": {"on": {"IGNORED": {}, "GO": "b"}}, "b": {"on": {"ALSO_IGNORED": {}}}}},
    "reenter_targetless": {"id": "re", "initial": "a", "states": {
        "a": {"on": {"AGAIN": {"reenter": True}, "GO": "b"}}, "b": {}}},
    "integer_like_events": {"id": "ints", "initial": "a", "states": {
        "a": {"on": {"go": "b", "10": "c", "2": "d"}}, "b": {"on": {"1": "a"}}, "c": {"on": {"0": "d"}}, "d": {}}},
    "integer_like_states": {"id": "ik", "initial": "z", "states": {
        "z": {"on": {"N": "10"}}, "10": {"on": {"N": "2"}}, "2": {"on": {"N": "a"}}, "a": {"on": {"N": "z"}}}},
    "final_with_root_events": {"id": "fr", "initial": "a", "on": {"RESET": ".a"}, "states": {
        "a": {"on": {"END": "done"}}, "done": {"type": "final"}}},
    "chain_12": chain(12),
    "chain_back_8": chain(8, back=True),
    "chain_final_6": chain(6, final=True),
    "grid_3x3": grid(3, 3),
    "grid_4x2": grid(4, 2),
    "tree_3x2": tree(3, 2),
    "tree_2x3": tree(2, 3),
    "random_flat_1": random_flat(1, 8, 3, 0.6),
    "random_flat_2": random_flat(2, 10, 4, 0.4),
    "random_flat_3": random_flat(3, 12, 2, 0.7),
    "random_flat_4": random_flat(4, 6, 5, 0.5),
    # -- nested ----------------------------------------------------------------------------
    "nested_basic": {"id": "n", "initial": "off", "states": {
        "off": {"on": {"POWER": "on"}},
        "on": {"initial": "idle", "on": {"POWER": "off"}, "states": {
            "idle": {"on": {"START": "running"}}, "running": {"on": {"STOP": "idle", "PAUSE": "paused"}},
            "paused": {"on": {"RESUME": "running"}}}}}},
    "nested_deep": {"id": "d", "initial": "a", "states": {
        "a": {"initial": "b", "states": {"b": {"initial": "c", "states": {
            "c": {"on": {"NEXT": "d"}}, "d": {"on": {"UP": "#d.e", "NEXT": "c"}}}}}},
        "e": {"on": {"DOWN": "#d.a.b.d"}}}},
    "nested_relative_targets": {"id": "rel", "initial": "p", "states": {
        "p": {"initial": "x", "on": {"TO_Y": ".y", "OUT": "q"}, "states": {"x": {}, "y": {"on": {"TO_X": "x"}}}},
        "q": {"on": {"IN": "p.y"}}}},
    "nested_parent_override": {"id": "po", "initial": "a", "states": {
        "a": {"initial": "a1", "on": {"E": "b"}, "states": {"a1": {"on": {"E": "a2"}}, "a2": {}}},
        "b": {"on": {"E": "a"}}}},
    "nested_done": {"id": "nd", "initial": "work", "states": {
        "work": {"initial": "step1", "onDone": "finished", "states": {
            "step1": {"on": {"NEXT": "step2"}}, "step2": {"on": {"NEXT": "complete"}}, "complete": {"type": "final"}}},
        "finished": {"on": {"AGAIN": "work"}}}},
    "nested_random_1": nested_random(1),
    "nested_random_2": nested_random(2),
    "nested_random_3": nested_random(3),
    "nested_random_4": nested_random(4),
    # -- parallel --------------------------------------------------------------------------
    "parallel_toggles": {"id": "pt", "type": "parallel", "states": {
        "bold": {"initial": "off", "states": {"off": {"on": {"BOLD": "on"}}, "on": {"on": {"BOLD": "off"}}}},
        "italic": {"initial": "off", "states": {"off": {"on": {"ITALIC": "on"}}, "on": {"on": {"ITALIC": "off"}}}}}},
    "parallel_three_regions": {"id": "p3", "type": "parallel", "states": {
        region: {"initial": "x", "states": {"x": {"on": {f"{region.upper()}": "y"}}, "y": {"on": {"RESET": "x"}}}}
        for region in ("r1", "r2", "r3")}},
    "parallel_shared_event": {"id": "ps", "type": "parallel", "states": {
        "left": {"initial": "a", "states": {"a": {"on": {"GO": "b"}}, "b": {"on": {"GO": "c"}}, "c": {}}},
        "right": {"initial": "a", "states": {"a": {"on": {"GO": "b", "ONLY_RIGHT": "b"}}, "b": {}}}}},
    "parallel_nested": {"id": "pn", "initial": "idle", "states": {
        "idle": {"on": {"START": "active"}},
        "active": {"type": "parallel", "on": {"QUIT": "idle"}, "states": {
            "upload": {"initial": "pending", "states": {
                "pending": {"on": {"UPLOAD": "busy"}}, "busy": {"on": {"UP_DONE": "ok"}}, "ok": {"type": "final"}}},
            "download": {"initial": "pending", "states": {
                "pending": {"on": {"DOWNLOAD": "busy"}}, "busy": {"on": {"DOWN_DONE": "ok"}}, "ok": {"type": "final"}}}},
            "onDone": "complete"},
        "complete": {}}},
    "parallel_cross_region": {"id": "pc", "type": "parallel", "states": {
        "a": {"initial": "a1", "states": {"a1": {"on": {"X": "a2"}}, "a2": {"on": {"Y": "#pc.b.b2"}}}},
        "b": {"initial": "b1", "states": {"b1": {"on": {"X": "b2"}}, "b2": {"on": {"Z": "b1"}}}}}},
    # -- history ---------------------------------------------------------------------------
    "history_shallow": {"id": "hs", "initial": "on", "states": {
        "on": {"initial": "one", "on": {"OFF": "off"}, "states": {
            "one": {"on": {"NEXT": "two"}}, "two": {"on": {"NEXT": "three"}}, "three": {}, "hist": {"type": "history"}}},
        "off": {"on": {"ON": "on.hist", "RESTART": "on"}}}},
    "history_deep": {"id": "hd", "initial": "on", "states": {
        "on": {"initial": "a", "on": {"OFF": "off"}, "states": {
            "a": {"initial": "a1", "on": {"B": "b"}, "states": {"a1": {"on": {"N": "a2"}}, "a2": {}}},
            "b": {"on": {"A": "a"}},
            "hist": {"type": "history", "history": "deep"}}},
        "off": {"on": {"ON": "#hd.on.hist"}}}},
    "history_default_target": {"id": "hdt", "initial": "off", "states": {
        "on": {"initial": "one", "states": {
            "one": {"on": {"N": "two"}}, "two": {}, "h": {"type": "history", "target": "two"}},
            "on": {"OFF": "off"}},
        "off": {"on": {"ON": "on.h"}}}},
    # -- guards ----------------------------------------------------------------------------
    "guards_default_true": {"id": "g", "initial": "a", "states": {
        "a": {"on": {"GO": [{"target": "b", "guard": "canGo"}, {"target": "c"}]}}, "b": {}, "c": {}}},
    "guards_false": {"id": "gf", "initial": "a", "guards": {"canGo": False}, "states": {
        "a": {"on": {"GO": [{"target": "b", "guard": "canGo"}, {"target": "c"}]}}, "b": {}, "c": {"on": {"BACK": "a"}}}},
    "guards_all_false": {"id": "ga", "initial": "a", "guards": {"one": False, "two": False}, "states": {
        "a": {"on": {"GO": [{"target": "b", "guard": "one"}, {"target": "c", "guard": "two"}], "OTHER": "c"}},
        "b": {}, "c": {}}},
    "guards_combinators": {"id": "gc", "initial": "a", "guards": {"yes": True, "no": False}, "states": {
        "a": {"on": {
            "AND": {"target": "b", "guard": {"type": "xstate.and", "guards": ["yes", "no"]}},
            "OR": {"target": "c", "guard": {"type": "xstate.or", "guards": ["yes", "no"]}},
            "NOT": {"target": "d", "guard": {"type": "xstate.not", "guard": "no"}}}},
        "b": {}, "c": {"on": {"BACK": "a"}}, "d": {}}},
    "guards_state_in": {"id": "si", "type": "parallel", "states": {
        "mode": {"initial": "safe", "states": {"safe": {"on": {"ARM": "armed"}}, "armed": {"on": {"DISARM": "safe"}}}},
        "door": {"initial": "shut", "states": {
            "shut": {"on": {"OPEN": [{"target": "alarm", "guard": {"type": "xstate.stateIn", "state": "#si.mode.armed"}},
                                     {"target": "open"}]}},
            "open": {"on": {"SHUT": "shut"}}, "alarm": {}}}}},
    # -- always ----------------------------------------------------------------------------
    "always_chain": {"id": "al", "initial": "a", "states": {
        "a": {"on": {"GO": "b"}}, "b": {"always": "c"}, "c": {"always": {"target": "d", "guard": "ready"}},
        "d": {"on": {"BACK": "a"}}}},
    "always_guarded_false": {"id": "alf", "initial": "a", "guards": {"ready": False}, "states": {
        "a": {"on": {"GO": "b"}}, "b": {"always": [{"target": "c", "guard": "ready"}], "on": {"SKIP": "c"}}, "c": {}}},
    "always_on_start": {"id": "als", "initial": "boot", "states": {
        "boot": {"always": "ready"}, "ready": {"on": {"RUN": "running"}}, "running": {"always": {"target": "ready", "guard": "stop"}}}},
    "always_with_assign": {"id": "ala", "initial": "a", "context": {"passed": False}, "states": {
        "a": {"on": {"GO": "b"}},
        "b": {"always": {"target": "a", "actions": [assign(passed=True)]}}}},
    # -- after -----------------------------------------------------------------------------
    "after_timeout": {"id": "t", "initial": "waiting", "states": {
        "waiting": {"after": {"1000": "timedOut"}, "on": {"RESPOND": "done"}},
        "timedOut": {"on": {"RETRY": "waiting"}}, "done": {"type": "final"}}},
    "after_two_delays": {"id": "t2", "initial": "a", "states": {
        "a": {"after": {"500": "b", "100": "c"}}, "b": {}, "c": {"after": {"200": "a"}}}},
    "after_guarded": {"id": "tg", "initial": "a", "guards": {"late": False}, "states": {
        "a": {"after": {"300": [{"target": "b", "guard": "late"}, {"target": "c"}]}}, "b": {}, "c": {}}},
    "after_nested": {"id": "tn", "initial": "p", "states": {
        "p": {"initial": "x", "after": {"1000": "q"}, "states": {"x": {"after": {"10": "y"}}, "y": {}}},
        "q": {}}},
    # -- wildcards -------------------------------------------------------------------------
    "wildcard_partial": {"id": "wp", "initial": "a", "states": {
        "a": {"on": {"key.*": "b", "key.enter": "c"}}, "b": {"on": {"reset": "a"}}, "c": {"on": {"key.*": "a"}}}},
    "wildcard_nested_descriptors": {"id": "wn", "initial": "a", "states": {
        "a": {"on": {"x.y.*": "b", "x.*": "c"}}, "b": {"on": {"x.*": "a"}}, "c": {}}},
    "wildcard_star_throws": {"id": "ws", "initial": "a", "states": {
        "a": {"on": {"*": "b", "GO": "c"}}, "b": {}, "c": {}}},
    "wildcard_star_with_events": {"id": "we", "initial": "a", "events": ["GO", "OTHER"], "states": {
        "a": {"on": {"*": "b", "GO": "c"}}, "b": {"on": {"GO": "a"}}, "c": {}}},
    # -- context -----------------------------------------------------------------------------
    "context_flag": {"id": "cf", "initial": "a", "context": {"visited": False}, "states": {
        "a": {"on": {"GO": {"target": "b", "actions": [assign(visited=True)]}}},
        "b": {"on": {"BACK": "a"}}}},
    "context_counter_bounded": {"id": "cc", "initial": "zero", "context": {"count": 0}, "states": {
        "zero": {"on": {"INC": {"target": "one", "actions": [assign(count=1)]}}},
        "one": {"on": {"INC": {"target": "two", "actions": [assign(count=2)]},
                       "RESET": {"target": "zero", "actions": [assign(count=0)]}}},
        "two": {"on": {"RESET": {"target": "zero", "actions": [assign(count=0)]}}}}},
    "context_entry_assign": {"id": "ce", "initial": "a", "context": {}, "states": {
        "a": {"on": {"GO": "b"}}, "b": {"entry": [assign(seen="b")], "on": {"GO": "a"}}}},
    "context_targetless_assign": {"id": "ct", "initial": "a", "context": {"mode": "x"}, "states": {
        "a": {"on": {"SET_Y": {"actions": [assign(mode="y")]}, "SET_X": {"actions": [assign(mode="x")]},
                     "GO": "b"}},
        "b": {}}},
    # -- invoke done events ----------------------------------------------------------------
    "invoke_done": {"id": "fetch", "initial": "idle", "states": {
        "idle": {"on": {"FETCH": "loading"}},
        "loading": {"invoke": {"src": "fetcher", "id": "req", "onDone": "success", "onError": "failure"}},
        "success": {"type": "final"}, "failure": {"on": {"RETRY": "loading"}}}},
    "invoke_default_id": {"id": "inv", "initial": "a", "states": {
        "a": {"invoke": {"src": "fetcher", "onDone": {"target": "b", "actions": [assign(fetched=True)]}}},
        "b": {}}},
    "invoke_two": {"id": "i2", "initial": "a", "states": {
        "a": {"invoke": [{"src": "fetcher", "id": "one", "onDone": "b"}, {"src": "saver", "id": "two", "onDone": "c"}]},
        "b": {}, "c": {}}},
    # -- raise -----------------------------------------------------------------------------
    "raise_internal": {"id": "r", "initial": "a", "states": {
        "a": {"on": {"GO": {"target": "b", "actions": [raise_("NEXT")]}}},
        "b": {"on": {"NEXT": "c"}}, "c": {"on": {"BACK": "a"}}}},
    "raise_delayed": {"id": "rd", "initial": "a", "states": {
        "a": {"entry": [raise_("LATER", delay=100, id="later")], "on": {"LATER": "b", "CANCEL": "c"}},
        "b": {}, "c": {}}},
    # -- combinations ------------------------------------------------------------------------
    "after_named_delay": {"id": "nd2", "initial": "a", "states": {
        "a": {"after": {"short": "b", "50": "c"}}, "b": {"on": {"BACK": "a"}}, "c": {}}},
    "invoke_error_and_snapshot": {"id": "ies", "initial": "a", "states": {
        "a": {"invoke": {"src": "ticker", "id": "tick", "onError": "failed",
                         "onSnapshot": {"actions": ["seen"]}, "onDone": "b"}},
        "b": {}, "failed": {"on": {"RETRY": "a"}}}},
    "parallel_done_to_final": {"id": "pdf", "initial": "work", "states": {
        "work": {"type": "parallel", "onDone": "finished", "states": {
            "x": {"initial": "x1", "states": {"x1": {"on": {"X": "x2"}}, "x2": {"type": "final"}}},
            "y": {"initial": "y1", "states": {"y1": {"on": {"Y": "y2"}}, "y2": {"type": "final"}}}}},
        "finished": {"type": "final"}}},
    "parallel_history_always": {"id": "pha", "initial": "run", "states": {
        "run": {"type": "parallel", "on": {"PAUSE": "paused"}, "states": {
            "audio": {"initial": "on", "states": {"on": {"on": {"MUTE": "off"}}, "off": {"on": {"MUTE": "on"}}}},
            "video": {"initial": "sd", "states": {"sd": {"on": {"HD": "hd"}}, "hd": {"always": {"target": "sd", "guard": "lowBandwidth"}}}},
            "h": {"type": "history", "history": "deep"}}},
        "paused": {"on": {"RESUME": "run.h"}}}},
    "enqueue_actions": {"id": "eq", "initial": "a", "context": {"n": 0}, "states": {
        "a": {"on": {"GO": {"target": "b", "actions": [{"type": "xstate.enqueueActions", "actions": [
            {"if": "flag", "then": [assign(n=1)], "else": [assign(n=2)]}, raise_("AUTO")]}]}}},
        "b": {"on": {"AUTO": "c"}}, "c": {"on": {"RESET": {"target": "a", "actions": [assign(n=0)]}}}}},
    "guards_state_in_value": {"id": "siv", "type": "parallel", "guards": {"never": False}, "states": {
        "p": {"initial": "p1", "states": {"p1": {"on": {"P": "p2"}}, "p2": {}}},
        "q": {"initial": "q1", "states": {"q1": {"on": {"Q": [
            {"target": "q3", "guard": {"type": "xstate.and", "guards": [
                {"type": "xstate.stateIn", "state": {"p": "p2"}}, {"type": "xstate.not", "guard": "never"}]}},
            {"target": "q2"}]}}, "q2": {}, "q3": {}}}}},
    "root_actions_only_in_parallel": {"id": "rap", "type": "parallel", "on": {"LOG": {"actions": ["log"]}}, "states": {
        "a": {"initial": "a1", "states": {"a1": {"on": {"N": "a2"}}, "a2": {}}}}},
    "deep_ids_and_escapes": {"id": "esc", "initial": "a", "states": {
        "a": {"id": "start", "on": {"GO": "#end"}},
        "b": {"initial": "c", "states": {"c": {"id": "end", "on": {"HOME": "#start"}}}}}},
    # -- options -----------------------------------------------------------------------------
    "events_given": {"id": "eg", "initial": "a", "events": ["GO", {"type": "SET", "value": 1}, "UNKNOWN"], "states": {
        "a": {"on": {"GO": "b", "SET": "c", "IGNORED": "d"}}, "b": {"on": {"GO": "a"}}, "c": {}, "d": {}}},
    "events_given_duplicate": {"id": "ed", "initial": "a", "events": ["GO", "GO", "BACK"], "states": {
        "a": {"on": {"GO": "b"}}, "b": {"on": {"BACK": "a"}}}},
    "to_state_leaf": {**PLAYER, "toState": "playing"},
    "to_state_id": {"id": "ti", "initial": "a", "toState": "#ti.b.b2", "states": {
        "a": {"on": {"X": "b", "Y": "b.b2"}}, "b": {"initial": "b1", "states": {"b1": {"on": {"N": "b2"}}, "b2": {"on": {"N": "b1"}}}}}},
    "to_state_parent_value": {"id": "tp", "initial": "a", "toState": "b", "states": {
        "a": {"on": {"X": "b"}}, "b": {"initial": "b1", "states": {"b1": {"on": {"N": "b2"}}, "b2": {"on": {"OUT": "#tp.c"}}}},
        "c": {}}},
    "to_state_object": {"id": "to", "type": "parallel", "toState": {"left": "on"}, "states": {
        "left": {"initial": "off", "states": {"off": {"on": {"L": "on"}}, "on": {"on": {"L": "off"}}}},
        "right": {"initial": "off", "states": {"off": {"on": {"R": "on"}}, "on": {"on": {"R": "off"}}}}}},
    "from_state": {**chain(6, back=True), "fromState": "s3"},
    "from_state_nested": {"id": "fn", "initial": "a", "fromState": {"b": "b2"}, "states": {
        "a": {"on": {"X": "b"}}, "b": {"initial": "b1", "states": {"b1": {"on": {"N": "b2"}}, "b2": {"on": {"N": "b1", "OUT": "#fn.a"}}}}}},
    "limit_exceeded": {**grid(3, 3), "limit": 10},
    "limit_exact": {**chain(4), "limit": 4},
    "limit_one_under": {**chain(4), "limit": 2},
    "machine_input": {"id": "in", "initial": "a", "input": {"user": "x"}, "states": {
        "a": {"on": {"GO": "b"}}, "b": {}}},
    # Inline code that assigns `undefined`: JSON.stringify drops the key, so {a: undefined} is the
    # state {} (the first) and a context holding undefined is reported without that key.
    "assign_undefined_is_no_key": {"id": "au", "initial": "a", "context": {}, "states": {
        "a": {"on": {"SET": {"target": "b", "actions": assign(x={"$js": "() => undefined"})}}},
        "b": {"on": {"BACK": "a", "ONE": {"actions": assign(x=1)}, "NONE": {"actions": assign(x={"$js": "() => undefined"})}}}}},
    "assign_undefined_in_list": {"id": "al", "initial": "a", "context": {"items": []}, "states": {
        "a": {"on": {"PUSH": {"target": "b", "actions": assign(items={"$js": "({ context }) => [...context.items, undefined]"})}}},
        "b": {}}},
}

# More generated machines: what the hand-written ones did not think of.
for _seed in range(10, 22):
    MACHINES[f"random_flat_seed{_seed}"] = random_flat(_seed, 6 + _seed % 7, 2 + _seed % 3, 0.5)
    MACHINES[f"nested_random_seed{_seed}"] = nested_random(_seed)

#: Options that are case settings, not machine config.
OPTION_KEYS = ("events", "toState", "fromState", "limit", "guards", "input")
#: Machines run with only one algorithm (simple paths of the larger ones are too many to list).
SHORTEST_ONLY = frozenset({"grid_4x2", "tree_3x2", "chain_back_8"})


def cases() -> list[dict[str, Any]]:
    """Every machine with both algorithms (options split off the config)."""
    result: list[dict[str, Any]] = []
    for name, entry in MACHINES.items():
        config = {key: value for key, value in entry.items() if key not in OPTION_KEYS}
        options = {key: entry[key] for key in OPTION_KEYS if key in entry}
        for algorithm in ("shortest", "simple"):
            if algorithm == "simple" and name in SHORTEST_ONLY:
                continue
            result.append({"name": f"{name}/{algorithm}", "config": config, "algorithm": algorithm, **options})
    return result


if __name__ == "__main__":
    json.dump(cases(), sys.stdout)
    sys.stdout.write("\n")
