"""Hypothesis strategies for fuzzing: machine-ish documents in every format, mangled.

A fuzz input starts from a real document (a machine written by statekit's own writers, or a
hand-written source) and is cut, spliced and sprinkled with characters that matter to the
readers (brackets, quotes, arrows, `<`, `#`, `:`), or is arbitrary text or JSON. The point is
inputs nobody would write, that still get deep into the readers.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

PLAYER = {"id": "player", "initial": "paused", "context": {"n": 0}, "states": {
    "paused": {"on": {"PLAY": {"target": "playing", "guard": "ready", "actions": ["log"]}}},
    "playing": {"type": "parallel", "states": {
        "audio": {"initial": "on", "states": {"on": {"on": {"MUTE": "off"}}, "off": {"after": {"100": "on"}}}},
        "video": {"initial": "hd", "states": {"hd": {"always": "sd"}, "sd": {"type": "final"}}},
    }, "onDone": "paused"}, "h": {"type": "history", "history": "deep"}}}

TS_SOURCE = """import { createMachine, assign, setup } from "xstate";
export const m = setup({ guards: { ok: ({ context }) => context.n > 1 } }).createMachine({
  id: "m", initial: "a", context: { n: 0 },
  states: { a: { on: { GO: { target: "b", guard: "ok", actions: assign({ n: ({ context }) => context.n + 1 }) } } },
            b: { after: { 500: "a" }, type: "final" } } });
"""

SPECIALS = [*list("{}[]()<>\"':;,#.-=|*&!\\/\n\t "), "->", "<->", "-->", "[*]", "</", "<!--", "${", "\x00", "\ud7ff", "NaN", "1e999", "&amp;", "]]>", "---", "%%", '"""']


def seed_documents() -> list[Any]:
    """One real document per writable format (plus the XState source and JSON/YAML texts)."""
    from statekit.formats import writable_formats, write_format
    from statekit.model import parse_machine

    model = parse_machine(PLAYER)
    documents: list[Any] = [TS_SOURCE, json.dumps(PLAYER), "id: y\ninitial: a\nstates:\n  a: {on: {T: b}}\n  b: {}\n"]
    for name in writable_formats():
        try:
            _format, written, _warnings = write_format(model, name)
        except Exception:  # a writer that cannot express the sample: the other seeds remain
            continue
        documents.append(written if isinstance(written, str) else json.dumps(written))
    return documents


@st.composite
def mangled_text(draw: st.DrawFn, seeds: list[str]) -> str:
    """A seed document, cut and spliced with characters that matter to some reader."""
    text = draw(st.sampled_from(seeds))
    for _ in range(draw(st.integers(0, 6))):
        if not text:
            break
        where = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(["insert", "delete", "duplicate", "truncate"]))
        if action == "insert":
            text = text[:where] + draw(st.sampled_from(SPECIALS)) + text[where:]
        elif action == "delete":
            text = text[:where] + text[where + draw(st.integers(1, 20)):]
        elif action == "duplicate":
            text = text[:where] + text[where:where + draw(st.integers(1, 200))] * draw(st.integers(2, 30)) + text[where:]
        else:
            text = text[:where]
    return text


json_leaves = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70),
                        st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=12))
json_data = st.recursive(
    json_leaves,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.sampled_from(["id", "states", "on", "initial", "type", "target", "x",
                                                             "always", "after", "entry", "guard", "context"]) | st.text(max_size=5),
                                            inner, max_size=4)),
    max_leaves=20,
)


def documents(seeds: list[str]) -> st.SearchStrategy[Any]:
    """Machine inputs: mangled seed texts, arbitrary text, or arbitrary JSON data."""
    return st.one_of(mangled_text(seeds), st.text(max_size=200), json_data)
