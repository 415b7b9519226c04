"""Mermaid stateDiagram-v2: read, write, round trips, warnings, hostile text, mermaid's own parser."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from format_strategies import any_machine_configs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from needs import missing
from statekit import tools
from statekit.errors import ToolError
from statekit.formats import detect_format, read_any, write_format
from statekit.model import MachineModel, machine_to_config, parse_machine
from statekit.model.resolve import resolve_targets

VALIDATORS = Path(__file__).parent / "validators"

# --- shared with test_d2_format ------------------------------------------------------------


def run_validator(script: str, texts: list[str], package: str) -> list[dict[str, Any]]:
    """`{ok, error}` per text from a node validator; skipped locally (never in CI) when absent."""
    if not (VALIDATORS / "node_modules" / package).is_dir() or shutil.which("node") is None:
        missing(f"node and the {package} validator", "npm ci in tests/formats/validators")
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for number, text in enumerate(texts):
            path = Path(folder) / f"{number}.txt"
            path.write_text(text, encoding="utf-8")
            paths.append(str(path))
        done = subprocess.run(["node", str(VALIDATORS / script), *paths], capture_output=True, text=True,
                              timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    results = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert len(results) == len(texts), done.stdout[-2000:]
    return results


def structure(model: MachineModel) -> dict[str, Any]:
    """What a structure-only format carries: states, types, initials, transitions and targets."""
    states = {node.path: (node.type, node.initial) for node in model.root.walk()}
    transitions = []
    for node in model.root.walk():
        for transition in node.transitions:
            targets = tuple(target.path if target is not None else None for target in resolve_targets(model, transition))
            guard = transition.guard.type if transition.guard is not None else None
            transitions.append((node.path, transition.kind, transition.event, guard, targets))
    return {"states": states, "transitions": transitions}


_KEYS = st.sampled_from(["idle", "a", "A", "b", "run", "a b", "x.y", "a-b", "end", "state", "Ünï", "0", "note", "H", "start"])
_EVENTS = st.sampled_from(["GO", "STOP", "go.on", "ü", "x-y", "RETRY_1"])
_GUARDS = st.sampled_from(["isOk", "ready", "has-cash"])


@st.composite
def _tree(draw: st.DrawFn, depth: int, parallel_region: bool = False) -> dict[str, Any]:
    kinds = ["atomic", "atomic", "final"] + (["compound", "parallel"] if depth < 3 else [])
    if parallel_region:
        kinds = ["atomic", "compound", "compound"] if depth < 3 else ["atomic"]
    kind = draw(st.sampled_from(kinds))
    if kind in ("compound", "parallel"):
        keys = draw(st.lists(_KEYS, min_size=1, max_size=3, unique=True))
        children = {key: draw(_tree(depth + 1, parallel_region=kind == "parallel")) for key in keys}
        if kind == "parallel":
            return {"type": "parallel", "states": children}
        return {"initial": draw(st.sampled_from(keys)), "states": children}
    return {"type": "final"} if kind == "final" else {}


@st.composite
def structure_machines(draw: st.DrawFn) -> dict[str, Any]:
    """Machines made only of what Mermaid and D2 carry: nesting, regions, finals, labelled edges."""
    keys = draw(st.lists(_KEYS, min_size=1, max_size=4, unique=True))
    config: dict[str, Any] = {"initial": draw(st.sampled_from(keys)), "states": {key: draw(_tree(1)) for key in keys}}
    paths: list[tuple[str, ...]] = []
    sources: list[tuple[str, ...]] = []

    def collect(state: dict[str, Any], path: tuple[str, ...]) -> None:
        for key, child in state.get("states", {}).items():
            paths.append((*path, key))
            if child.get("type") != "final":
                sources.append((*path, key))
            collect(child, (*path, key))

    collect(config, ())
    for source in draw(st.lists(st.sampled_from(sources), max_size=6)) if sources else []:
        state = config
        for key in source:
            state = state["states"][key]
        target = draw(st.sampled_from(paths))
        item: dict[str, Any] = {"target": "#(machine)." + ".".join(k.replace(".", "\\.") for k in target)}
        if draw(st.booleans()):
            item["guard"] = draw(_GUARDS)
        if draw(st.integers(0, 5)) == 0:
            state.setdefault("always", []).append(item)
        else:
            state.setdefault("on", {}).setdefault(draw(_EVENTS), []).append(item)
    return config


# --- round trips ------------------------------------------------------------------------------

EXAMPLE = {
    "id": "player",
    "initial": "idle",
    "states": {
        "idle": {"on": {"PLAY": {"target": "playing", "guard": "hasTrack"}}, "description": "Nothing plays"},
        "playing": {
            "type": "parallel",
            "states": {
                "audio": {"initial": "on", "states": {"on": {"on": {"MUTE": "off"}}, "off": {"on": {"UNMUTE": "on"}}}},
                "video": {"initial": "shown", "states": {"shown": {"on": {"HIDE": "hidden"}}, "hidden": {}}},
            },
            "on": {"STOP": "stopped"},
        },
        "stopped": {"type": "final"},
    },
}


def test_the_example_round_trips_and_parses_with_mermaid() -> None:
    model = parse_machine(EXAMPLE)
    _, text, warnings = write_format(model, "mermaid")
    assert isinstance(text, str) and text.startswith("stateDiagram-v2\n")
    assert "--" in text.splitlines() or "    --" in text.splitlines()
    assert [w["code"] for w in warnings] == ["id_lost"]
    back = read_any(text)
    assert back.format == "mermaid"
    assert structure(back.model) == structure(model)
    assert back.model.nodes["(machine).idle"].description == "Nothing plays"
    assert run_validator("mermaid_parse.mjs", [text], "mermaid") == [{"ok": True, "error": None, "type": "stateDiagram"}]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(structure_machines())
def test_structure_round_trips_through_mermaid(config: dict[str, Any]) -> None:
    model = parse_machine(config)
    _, text, warnings = write_format(model, "mermaid")
    assert not [w for w in warnings if w["code"] not in ("key_renamed",)], warnings
    back, read_warnings = read_any(text, "mermaid").model, read_any(text, "mermaid").warnings
    assert structure(back) == structure(model), text
    assert {w["code"] for w in read_warnings} <= {"assumed_final", "assumed_always"}


@settings(max_examples=1, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(structure_machines(), min_size=40, max_size=40))
def test_written_mermaid_parses_with_mermaid(configs: list[dict[str, Any]]) -> None:
    texts = [str(write_format(parse_machine(config), "mermaid")[1]) for config in configs]
    results = run_validator("mermaid_parse.mjs", texts, "mermaid")
    failures = [(text, result) for text, result in zip(texts, results, strict=True) if not result["ok"]]
    assert not failures, failures[:2]


def test_odd_keys_get_safe_ids_and_keep_their_key() -> None:
    config = {"initial": "a-b", "states": {"a-b": {"on": {"GO": "x y:{z}"}}, "x y:{z}": {"states": {
        "a-b": {}}, "initial": "a-b"}, "end": {}, "a_b": {}}}
    model = parse_machine(config)
    _, text, _ = write_format(model, "mermaid")
    assert 'state "a-b" as a_b' in text and 'state "x y:{z}" as x_y__z_' in text and 'state "end" as end_' in text
    assert structure(read_any(text, "mermaid").model) == structure(model)
    assert run_validator("mermaid_parse.mjs", [str(text)], "mermaid")[0]["ok"]


# --- reading hand-written diagrams -------------------------------------------------------------

HAND_WRITTEN = """---
title: Door
---
%% a comment
stateDiagram-v2
    direction LR
    state "Closed door" as closed
    [*] --> closed
    closed --> opened : OPEN [unlocked] / creak, log
    opened --> closed : CLOSE
    opened --> check
    state check <<choice>>
    check --> broken : [isBroken]
    check --> closed : else
    state broken {
        [*] --> waiting
        waiting --> fixed : FIX
        fixed --> [*]
    }
    state split <<fork>>
    closed --> split : SPLIT
    split --> both
    state both {
        l1 --> l2 : L
        --
        [*] --> r1
        r1
    }
    note right of closed : Keep it shut
    note left of opened
        Open
        wide
    end note
    both --> [*] : DONE
"""


def test_a_hand_written_diagram_reads_with_assumptions_reported() -> None:
    outcome = read_any(HAND_WRITTEN)
    assert outcome.format == "mermaid"
    model = outcome.model
    nodes = model.nodes
    closed = nodes["(machine).Closed door"]
    assert model.root.initial == "Closed door"
    assert closed.description == "Keep it shut"
    assert nodes["(machine).opened"].description == "Open\nwide"
    go = next(t for t in closed.transitions if t.event == "OPEN")
    assert go.guard is not None and go.guard.type == "unlocked"
    assert [a.type for a in go.actions] == ["creak", "log"]
    check = [t for t in nodes["(machine).check"].transitions]
    assert [(t.kind, t.guard.type if t.guard else None) for t in check] == [("always", "isBroken"), ("always", None)]
    assert nodes["(machine).broken.fixed"].type == "final"
    both = nodes["(machine).both"]
    assert both.type == "parallel"
    assert [child.key for child in both.children] == ["region1", "r1"]
    assert both.children[0].initial == "l1"
    fork = nodes["(machine).split"].transitions
    assert len(fork) == 1 and fork[0].kind == "always" and fork[0].targets is not None
    final = [child for child in model.root.children if child.type == "final"]
    assert [child.key for child in final] == ["final"]
    codes = {w["code"] for w in outcome.warnings}
    assert {"assumed_choice", "assumed_fork", "assumed_always", "assumed_final", "assumed_final_state",
            "assumed_region", "assumed_initial"} <= codes
    assert {w["code"] for w in outcome.normalization["assumed"]} == {c for c in codes if c.startswith("assumed_")}


def test_a_join_is_an_ordinary_state_with_a_warning() -> None:
    text = "stateDiagram-v2\n  state j <<join>>\n  a --> j : A\n  b --> j : B\n  j --> c\n"
    outcome = read_any(text, "mermaid")
    assert outcome.model.nodes["(machine).j"].transitions[0].kind == "always"
    assert "assumed_join" in {w["code"] for w in outcome.warnings}


def test_detection_picks_mermaid_and_not_others() -> None:
    assert detect_format("stateDiagram-v2\n a --> b\n") == "mermaid"
    assert detect_format("%% hi\nstateDiagram\n a --> b\n") == "mermaid"
    assert detect_format('{"initial": "a", "states": {"a": {}}}') != "mermaid"


# --- warnings for what Mermaid cannot carry --------------------------------------------------

LOSSY = {
    "id": "m",
    "context": {"n": 1},
    "initial": "a",
    "on": {"RESET": ".a"},
    "states": {
        "a": {
            "entry": ["hello"], "exit": ["bye"], "tags": ["t"], "meta": {"k": 1},
            "invoke": {"src": "svc", "id": "svc"},
            "on": {
                "GO": {"target": "b", "guard": {"type": "ok", "params": {"n": 1}}, "actions": ["act"]},
                "NOOP": {"actions": ["x"]},
                "BOTH": {"target": ["#m.p.r1.x", "#m.p.r2.y"], "reenter": True},
            },
            "after": {"1000": "b"},
        },
        "b": {"id": "bee", "always": {"target": "a", "guard": {"type": "xstate.not", "guard": "ok"}}},
        "p": {"type": "parallel", "states": {"r1": {"initial": "x", "states": {"x": {}}},
                                             "r2": {"initial": "y", "states": {"y": {}}}}},
        "h": {"type": "history", "history": "deep"},
        "f": {"type": "final", "output": {"done": True}},
    },
}


@pytest.mark.parametrize("code", [
    "context_lost", "id_lost", "actions_lost", "tags_lost", "meta_lost", "invoke_lost", "guard_lost",
    "actions_as_text", "targetless_lost", "multiple_targets", "reenter_lost", "event_kind_as_name",
    "root_transition_lost", "output_lost", "history_as_state",
])
def test_every_loss_is_a_warning(code: str) -> None:
    _, _text, warnings = write_format(parse_machine(LOSSY), "mermaid")
    assert code in {w["code"] for w in warnings}
    assert all(set(w) == {"code", "message", "path"} for w in warnings)


def test_the_lossy_machine_still_parses_with_mermaid() -> None:
    _, text, _ = write_format(parse_machine(LOSSY), "mermaid")
    assert run_validator("mermaid_parse.mjs", [str(text)], "mermaid")[0]["ok"]


def test_a_parallel_root_is_wrapped_with_a_warning() -> None:
    model = parse_machine({"type": "parallel", "states": {"a": {}, "b": {}}})
    _, text, warnings = write_format(model, "mermaid")
    assert "parallel_root" in {w["code"] for w in warnings}
    assert run_validator("mermaid_parse.mjs", [str(text)], "mermaid")[0]["ok"]


# --- the tool -----------------------------------------------------------------------------------


def test_convert_machine_writes_and_detects_mermaid() -> None:
    result = tools.call("convert_machine", {"machine": EXAMPLE, "to": "mermaid"})
    assert result["format"] == "mermaid" and result["content"].startswith("stateDiagram-v2")
    back = tools.call("convert_machine", {"machine": result["content"], "to": "xstate"})
    assert back["from"] == "mermaid"
    assert structure(parse_machine(back["content"])) == structure(parse_machine({**EXAMPLE, "id": "(machine)"}))


# --- hostile text --------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "",
    "flowchart LR\n a --> b",
    "stateDiagram-v2\n" + "state a {\n" * 5000,
    "stateDiagram-v2\n" + "state a {\n" * 70 + "}\n" * 70,
    "stateDiagram-v2\n}\n",
    "stateDiagram-v2\n a --> b\n" + "x" * 2_100_000,
    "stateDiagram-v2\n [*] --> [*]\n",
    "stateDiagram-v2\n note right of a\n never ends",
    "stateDiagram-v2\n a -> b ::: {{{\n",
    "stateDiagram-v2 a --> b",
    # composites re-opened at the top level nest states deeper than any one block does
    "stateDiagram-v2\nstate s0 {\nstate s1 {\n}\n}\n" + "".join(f"state s{i} {{\nstate s{i + 1} {{\n}}\n}}\n"
                                                               for i in range(1, 1500)),
])
def test_hostile_text_is_invalid_input(text: str) -> None:
    with pytest.raises(ToolError) as error:
        read_any(text, "mermaid")
    assert error.value.code == "invalid_input"


_PIECES = [*list('ab[*]-> :{}\n"<>%;.#sntate'), "state ", "-->", "--", "note right of ", "<<choice>>", "<<fork>>", "end note", "\n"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=120).map("".join))
def test_any_text_reads_or_is_invalid_input(body: str) -> None:
    try:
        model, _ = (lambda o: (o.model, o.warnings))(read_any("stateDiagram-v2\n" + body, "mermaid"))
    except ToolError as error:
        assert error.code == "invalid_input"
    else:
        write_format(model, "mermaid")


# --- any machine: written with warnings, read back, parsed by mermaid ------------------------


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_machine_configs())
def test_any_machine_writes_and_reads_back(config: dict[str, Any]) -> None:
    model = parse_machine(config)
    _, text, warnings = write_format(model, "mermaid")
    assert all(set(w) == {"code", "message", "path"} for w in warnings)
    back = read_any(text, "mermaid").model
    assert len(back.nodes) >= len([node for node in model.root.walk() if node is not model.root])


@settings(max_examples=1, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(any_machine_configs(), min_size=40, max_size=40))
def test_any_machine_as_mermaid_parses_with_mermaid(configs: list[dict[str, Any]]) -> None:
    texts = [str(write_format(parse_machine(config), "mermaid")[1]) for config in configs]
    results = run_validator("mermaid_parse.mjs", texts, "mermaid")
    failures = [(text, result) for text, result in zip(texts, results, strict=True) if not result["ok"]]
    assert not failures, failures[:2]


def test_class_shorthands_only_style() -> None:
    text = "stateDiagram-v2\n  classDef hot fill:#f00\n  [*] --> a:::hot\n  a:::hot --> b : GO\n  b:::hot\n  class b hot\n"
    model = read_any(text, "mermaid").model
    assert [node.key for node in model.root.children] == ["a", "b"]
    assert run_validator("mermaid_parse.mjs", [text], "mermaid")[0]["ok"]


def test_a_note_on_no_state_is_a_warning() -> None:
    outcome = read_any("stateDiagram-v2\n  a --> b : GO\n  note left of b : fine\n  note right of ghost : boo\n", "mermaid")
    assert [node.key for node in outcome.model.root.children] == ["a", "b"]
    assert outcome.model.root.children[1].description == "fine"
    assert "note_lost" in {w["code"] for w in outcome.warnings}


def test_builtin_guards_and_actions_are_labelled_so_that_they_read_back() -> None:
    """statelyai/xstate's trivia example: `guard: not('isAnswerCorrect')`, `actions: assign(...)`
    (the labels `[xstate.not]` / `xstate.assign` read back as built-ins without operands)."""
    config = {"id": "m", "initial": "a", "states": {
        "a": {"on": {"GO": [
            {"target": "b", "guard": {"type": "xstate.not", "guard": "isAnswerCorrect"},
             "actions": {"type": "xstate.assign", "assignment": {"x": 1}}},
            {"target": "b", "guard": {"type": "xstate.and", "guards": ["p", {"type": "xstate.or", "guards": ["q", "r"]}]}},
        ]}},
        "b": {}}}
    for target in ("mermaid", "d2"):
        _, text, warnings = write_format(parse_machine(config), target)
        assert isinstance(text, str) and "xstate." not in text
        assert "guard_lost" in {w["code"] for w in warnings}
        back = read_any(text, target).model
        (first, second) = back.root.children[0].transitions
        assert first.guard is not None and first.guard.type == "!isAnswerCorrect"
        assert [a.type for a in first.actions] == ["assign"]
        assert second.guard is not None and second.guard.type == "p && (q || r)"
        assert machine_to_config(back)  # writes again


def test_a_description_starting_with_a_colon_parses_with_mermaid_and_reads_back() -> None:
    """Found by test_diagram_names' hypothesis run: a note block whose first line starts with `:`
    was read by mermaid as a one-line note of the `note right of` line before it."""
    config = {"id": "m", "initial": "a", "states": {"a": {"description": ':x=1: "{x}" y', "on": {"GO": "b"}}, "b": {}}}
    _, text, _ = write_format(parse_machine(config), "mermaid")
    assert isinstance(text, str)
    assert run_validator("mermaid_parse.mjs", [text], "mermaid")[0]["ok"]
    assert read_any(text, "mermaid").model.nodes["(machine).a"].description == ':x=1: "{x}" y'
