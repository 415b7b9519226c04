"""D2 and Mermaid writers against their real parsers on names nobody would pick.

hypothesis draws machines whose state keys, descriptions and events come from the keywords
of both languages, punctuation and Unicode. Each written document goes through the official
D2 compiler and mermaid's own parser (tests/formats/validators/*_structure.mjs), which report
what they read: every state must be a shape / node labelled with its key, every description
the state's tooltip / note, every edge carry statekit's label. Then statekit reads the
document back and must find the same keys and descriptions.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st
from test_mermaid_format import run_validator

from statekit.formats import read_any, write_format
from statekit.formats.mermaid import edges_of
from statekit.model import MachineModel, parse_machine

KEYWORDS = [
    # D2 keywords, style keywords and values
    "shape", "label", "style", "near", "icon", "tooltip", "link", "width", "height", "direction", "vars",
    "classes", "class", "layers", "scenarios", "steps", "top", "left", "grid-rows", "constraint", "imports",
    "bold", "italic", "underline", "font", "font-size", "font-color", "opacity", "stroke", "fill", "shadow",
    "multiple", "3d", "animated", "border-radius", "double-border", "text-transform", "null", "true", "_",
    # Mermaid keywords
    "state", "note", "end", "as", "classDef", "style", "click", "hide", "scale", "fork", "join", "choice",
    "LR", "TB", "accTitle", "accDescr", "default", "stateDiagram", "stateDiagram-v2", "end note", "[*]", "--",
    # punctuation and Unicode
    "a:b", 'say "hi"', "x;y", "%% c", "{x}", "a b", "a.b", "a|b", "<html>", "&amp;", "#quot;", "#59;",
    "'single'", "`tick`", "$var", "${x}", "#hash", "back\\slash", "ünïcödé", "日本語", "emoji 🎉", "-->", "a*b",
]

names = st.one_of(
    st.sampled_from(KEYWORDS),
    st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=8),
).filter(lambda name: name == name.strip() and name != "")


@st.composite
def hostile_machines(draw: st.DrawFn) -> dict[str, Any]:
    keys = draw(st.lists(names, min_size=2, max_size=14, unique=True))
    states: dict[str, Any] = {}
    for index, key in enumerate(keys):
        state: dict[str, Any] = {"on": {f"E{index}": keys[(index + 1) % len(keys)]}}
        if draw(st.booleans()):
            state["description"] = f'{draw(names)}: "{draw(names)}" {draw(names)}'
        states[key] = state
    if draw(st.booleans()):  # nested: the same names one level down
        inner = {key: {"description": key} for key in keys[: len(keys) // 2]}
        states[keys[0]] = {**states[keys[0]], "initial": next(iter(inner)), "states": inner} if inner else states[keys[0]]
    return {"id": "m", "initial": keys[0], "states": states}


def state_nodes(model: MachineModel) -> list[Any]:
    return [node for node in model.root.walk() if node is not model.root]


def edge_labels(model: MachineModel, format_name: str) -> list[str]:
    return sorted(edge.label for edge in edges_of(model, [], format_name) if edge.label)


def check_d2(model: MachineModel, reading: dict[str, Any]) -> None:
    assert reading["ok"], reading["error"]
    shapes = [(label, tooltip or "") for _id, label, tooltip in reading["shapes"] if label != ""]
    expected = [(node.key, html.escape(node.description, quote=False) if node.description else "")
                for node in state_nodes(model)]
    assert sorted(shapes) == sorted(expected)
    assert sorted(label for _a, _b, label in reading["connections"] if label) == edge_labels(model, "D2")


def check_mermaid(model: MachineModel, reading: dict[str, Any]) -> None:
    assert reading["ok"], reading["error"]
    drawn = {"note", "noteGroup", "stateStart", "stateEnd"}
    labels = [label for _id, label, _parent, shape in reading["nodes"] if shape not in drawn]
    assert sorted(labels) == sorted(node.key for node in state_nodes(model))
    notes = [label for _id, label, _parent, shape in reading["nodes"] if shape == "note"]
    assert sorted(notes) == sorted(node.description for node in state_nodes(model) if node.description)
    assert sorted(label for _a, _b, label in reading["edges"] if label) == edge_labels(model, "Mermaid")


def read_back(model: MachineModel, text: str, format_name: str) -> None:
    back = read_any(text, format_name).model
    assert sorted((n.key, n.description or "") for n in state_nodes(back)) == \
        sorted((n.key, n.description or "") for n in state_nodes(model))


# No shrinking: every step costs two node runs; the failure message prints the whole document.
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(st.lists(hostile_machines(), min_size=4, max_size=4))
# Found by the draw: a note block's line starting `:` (mermaid read it as a one-line note's text).
@example([{"id": "m", "initial": "a", "states": {"a": {"on": {"E0": "b"}, "description": ':x: "y" z'},
                                                 "b": {"on": {"E1": "a"}, "description": "end note: x"}}}] * 4)
def test_hostile_names_survive_the_real_d2_compiler_and_mermaid_parser(configs: list[dict[str, Any]]) -> None:
    models = [parse_machine(config) for config in configs]
    for format_name, script, package, check in (
        ("d2", "d2_structure.mjs", "@terrastruct/d2", check_d2),
        ("mermaid", "mermaid_structure.mjs", "mermaid", check_mermaid),
    ):
        texts = []
        for model in models:
            _, text, _warnings = write_format(model, format_name)
            assert isinstance(text, str)
            texts.append(text)
        for model, text, reading in zip(models, texts, run_validator(script, texts, package), strict=True):
            try:
                check(model, reading)
                read_back(model, text, format_name)
            except AssertionError as error:
                raise AssertionError(f"{format_name}:\n{text}\n{json.dumps(reading, ensure_ascii=False)}") from error


ACCEPTED = sorted((Path(__file__).parent / "data" / "mermaid_accepted").glob("*.mmd"))


def test_the_mermaid_reader_reads_what_mermaids_parser_accepts() -> None:
    """Diagrams in the forms of mermaid's stateDiagram docs (comments, trailing `%%`, classDef,
    class, `:::`, direction, notes, concurrency, choice / fork / join, front matter): mermaid
    accepts each; statekit must read each, with the transition labels mermaid reads."""
    texts = [path.read_text(encoding="utf-8") for path in ACCEPTED]
    assert len(texts) >= 6
    for path, text, reading in zip(ACCEPTED, texts, run_validator("mermaid_structure.mjs", texts, "mermaid"),
                                   strict=True):
        assert reading["ok"], (path.name, reading["error"])
        model = read_any(text, "mermaid").model
        ours = sorted(t.event for t in model.transitions() if t.kind == "on")
        # Labels on edges out of a choice become guards, not events: compare where mermaid's
        # label is an event (no choice source).
        choices = {node_id for node_id, _label, _parent, shape in reading["nodes"] if shape == "choice"}
        labels = sorted(label for a, _b, label in reading["edges"] if label and a not in choices)
        assert ours == labels, path.name
