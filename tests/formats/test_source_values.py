"""Values from imports and declarations in XState source (issue 23, item 3).

A value defined elsewhere never makes a tool refuse what extraction produced: an imported tag runs
as an opaque name with a warning. Enums and constants declared in the same file are read. Where
the states themselves come from an import, every tool says so (invalid_input naming what it
cannot know) instead of answering about an empty machine. The XState behaviours of this item
(an `assign` that mutates `context`, class-method action factories, the root done event's
`output` key) are cases of tests/oracle/inline/cases, run against real XState by
tests/engine/test_inline_oracle.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from statekit.errors import ToolError
from statekit.extract import extract_machines
from statekit.tools import call

TAGS = """import { createMachine } from 'xstate';
import { ItwTags } from './tags';
export const machine = createMachine({
  id: Ids.Root, initial: 'a',
  states: { a: { tags: [ItwTags.Loading, 'x'], on: { GO: 'b' } }, b: { description: Texts.B } },
});
"""

ENUM = """import { createMachine } from 'xstate';
enum S { A = 'a', B = 'b' }
enum Level { Low, High, Top = 10, Above }
const DONE = 'done';
const EVENTS = { go: 'GO' } as const;
export const machine = createMachine({
  initial: S.A,
  context: { level: Level.High, top: Level.Above, name: Level[1] },
  states: {
    [S.A]: { on: { [EVENTS.go]: S.B } },
    [S.B]: { on: { FIN: DONE } },
    [DONE]: { type: 'final' },
  },
});
"""

IMPORTED_STATES = """import { createMachine } from 'xstate';
import { S } from './states';
export const machine = createMachine({ initial: S.a, states: { [S.a]: { on: { GO: S.b } }, [S.b]: {} } });
"""

IMPORTED_TARGET = """import { createMachine } from 'xstate';
import { NEXT } from './states';
export const machine = createMachine({ initial: 'a', states: { a: { on: { GO: NEXT } }, b: {} } });
"""

MUTATING_ASSIGN = """import { setup, assign } from 'xstate';
export const machine = setup({ actions: { inc: assign(({ context }) => { context.n = 2; }) } }).createMachine({
  initial: 'a', context: { n: 1 }, states: { a: { on: { E: { target: 'b', actions: 'inc' } } }, b: {} },
});
"""


def test_an_imported_tag_runs_as_an_opaque_name_with_a_warning() -> None:
    """On e361e51: invalid_input `tags must be strings` from simulate, convert and paths."""
    result = call("simulate_machine", {"machine": TAGS, "events": ["GO"]})
    assert result["steps"][0]["tags"] == ["ItwTags.Loading", "x"]
    assert result["steps"][1]["value"] == "b"
    opaque = result["normalization"]["opaqueValues"]
    assert any("ItwTags.Loading" in line and "states.a.tags[0]" in line for line in opaque), opaque
    assert any("Ids.Root" in line for line in opaque) and any("Texts.B" in line for line in opaque)
    paths = call("generate_graph_paths", {"machine": TAGS, "algorithm": "shortest"})
    assert [p["state"]["value"] for p in paths["paths"]] == ["a", "b"]
    assert paths["normalization"]["opaqueValues"] == opaque
    converted = call("convert_machine", {"machine": TAGS, "to": "scxml"})
    assert any("ItwTags.Loading" in w["message"] for w in converted["warnings"])


def test_enums_and_constants_of_the_same_file_are_read() -> None:
    """On e361e51: `initial {"$ref": "S.A"}` with no states, and simulate answered `{}`."""
    extracted = extract_machines(ENUM)
    assert extracted["errors"] == []
    config = extracted["machines"][0]["config"]
    assert config["initial"] == "a" and list(config["states"]) == ["a", "b", "done"]
    assert config["context"] == {"level": 1, "top": 11, "name": "High"}  # TypeScript's numbering and reverse map
    steps = call("simulate_machine", {"machine": ENUM, "events": ["GO", "FIN"]})["steps"]
    assert [(step["value"], step["status"]) for step in steps] == [("a", "active"), ("b", "active"), ("done", "done")]


def test_an_enum_read_by_inline_code() -> None:
    source = """import { setup } from 'xstate';
enum Mode { Fast = 'fast', Slow = 'slow' }
export const machine = setup({ guards: { fast: ({ context }) => context.mode === Mode.Fast } }).createMachine({
  context: { mode: 'slow' }, initial: 'a', states: { a: { on: { GO: { target: 'b', guard: 'fast' } } }, b: {} } });"""
    assert call("simulate_machine", {"machine": source, "events": ["GO"]})["steps"][-1]["value"] == "a"
    fast = source.replace("mode: 'slow'", "mode: Mode.Fast")
    assert call("simulate_machine", {"machine": fast, "events": ["GO"]})["steps"][-1]["value"] == "b"


#: Every tool that reads a machine, with arguments that make it answer.
READING_TOOLS: dict[str, dict[str, Any]] = {
    "simulate_machine": {"events": ["GO"]},
    "generate_graph_paths": {"algorithm": "shortest"},
    "check_machine_properties": {"properties": [{"type": "deadlockFree"}]},
    "convert_machine": {"to": "scxml"},
    "validate_machine": {},
    "start_machine": {},
    "visualize_machine": {},
}


@pytest.mark.parametrize("tool", sorted(READING_TOOLS))
@pytest.mark.parametrize("source", [IMPORTED_STATES, IMPORTED_TARGET], ids=["state_names", "target"])
def test_states_from_an_import_are_said_unknown_by_every_tool(tool: str, source: str) -> None:
    """On e361e51 simulate, convert and paths answered an empty state silently (active, no warning)."""
    with pytest.raises(ToolError) as raised:
        call(tool, {"machine": source, **READING_TOOLS[tool]})
    assert raised.value.code == "invalid_input"
    assert "states cannot be known statically" in raised.value.message


def test_extraction_names_an_unresolved_state_key() -> None:
    errors = extract_machines(IMPORTED_STATES)["errors"]
    assert {error["code"] for error in errors} == {"unresolved_state"}


def test_an_assign_that_mutates_context_and_returns_nothing() -> None:
    """The issue's repro: XState gives `b` with {n: 2}; on e361e51 statekit stopped in `a`
    ("an assign function must return a mapping of context keys")."""
    steps = call("simulate_machine", {"machine": MUTATING_ASSIGN, "events": ["E"]})["steps"]
    assert (steps[-1]["value"], steps[-1]["context"], steps[-1]["status"]) == ("b", {"n": 2}, "active")


def test_a_python_assign_that_mutates_context_and_returns_nothing() -> None:
    from statekit import initial_transition, transition
    from statekit.engine.implementations import assign, setup

    def bump(args: Any, params: Any) -> None:
        args.context["n"] = args.context["n"] + 1

    machine = setup(actions={"bump": assign(bump)}).create_machine(
        {"initial": "a", "context": {"n": 1}, "states": {"a": {"on": {"E": {"target": "b", "actions": "bump"}}}, "b": {}}})
    snapshot, _ = initial_transition(machine)
    after, _ = transition(machine, snapshot, {"type": "E"})
    assert (after.value, after.context) == ("b", {"n": 2})
