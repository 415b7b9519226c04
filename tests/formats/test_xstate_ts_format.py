"""The `xstate-ts` format: read (first machine), write (TypeScript), detect, and the round trip."""

from __future__ import annotations

from pathlib import Path

import pytest

from statekit import formats
from statekit.errors import ToolError
from statekit.extract import extract_machines
from statekit.formats import (
    Source,
    detect_format,
    extract_models,
    get_format,
    read_any,
    write_format,
)
from statekit.model import machine_to_config, parse_machine

CORPUS = Path(__file__).resolve().parents[1] / "extract" / "corpus"
FILES = sorted(CORPUS.iterdir())


def test_registered_with_aliases() -> None:
    for alias in ("xstate-ts", "typescript", "javascript", "ts", "js"):
        assert get_format(alias).name == "xstate-ts"


def test_detects_source_and_leaves_json_alone() -> None:
    source = "import { createMachine } from 'xstate';\nexport const m = createMachine({ id: 'm' });"
    assert detect_format(source) == "xstate-ts"
    assert get_format("xstate-ts").detect(Source('{"id": "m", "states": {}}', {"id": "m", "states": {}})) == 0.0  # type: ignore[misc]
    assert get_format("xstate-ts").detect(Source("const x = 1;")) == 0.0  # type: ignore[misc]


def test_read_takes_the_first_machine_and_reports_what_it_could_not_follow() -> None:
    outcome = read_any("""import { createMachine } from 'xstate';
import { track } from './t';
export const a = createMachine({ id: 'first', initial: 'x', states: { x: { entry: track } } });
export const b = createMachine({ id: 'second' });""", "ts")
    assert outcome.model.id == "first"
    assert outcome.model.root.children[0].entry[0].type == "track"
    assert [w["code"] for w in outcome.warnings] == ["unresolved_reference"]


def test_read_without_a_machine_is_invalid_input() -> None:
    with pytest.raises(ToolError) as caught:
        read_any("const x = 1;", "xstate-ts")
    assert caught.value.code == "invalid_input"


def test_write_uses_setup_with_placeholders_when_implementations_are_named() -> None:
    model = parse_machine({
        "id": "door", "initial": "closed",
        "states": {"closed": {"on": {"OPEN": {"target": "open", "guard": "canOpen", "actions": ["beep"]}}},
                   "open": {"invoke": {"src": "watcher"}, "after": {"LONG": "closed"}}},
    })
    name, content, warnings = write_format(model, "typescript")
    assert name == "xstate-ts" and isinstance(content, str)
    assert "setup({" in content and ".createMachine({" in content
    assert "canOpen: () => { throw new Error(" in content
    assert "beep: () => {}," in content
    assert {w["message"].split(" ")[1] for w in warnings} == {"'canOpen'", "'beep'", "'watcher'", "'LONG'"}
    again = extract_machines(content, "door.ts")
    assert again["errors"] == []
    assert parse_machine(again["machines"][0]["config"]) == model


def test_write_without_implementations_is_a_plain_createMachine() -> None:
    model = parse_machine({"id": "light", "initial": "on", "states": {"on": {"on": {"T": "off"}}, "off": {}}})
    _, content, warnings = write_format(model, "ts")
    assert isinstance(content, str)
    assert content.startswith("import { createMachine } from 'xstate';")
    assert "export const lightMachine = createMachine({" in content
    assert warnings == []


@pytest.mark.parametrize("path", FILES, ids=[path.name for path in FILES])
def test_corpus_round_trip_through_typescript(path: Path) -> None:
    """read -> write -> read keeps the model, inline code and its JavaScript names included."""
    try:
        model, _ = get_format("xstate-ts").read(path.read_text(encoding="utf-8"))  # type: ignore[misc]
    except ToolError as error:
        # Inline code in built-in fields the model does not take yet (model/parse.py).
        assert "needs an" in str(error)
        pytest.skip(str(error))
    content, _ = get_format("xstate-ts").write(model)  # type: ignore[misc]
    again, _ = get_format("xstate-ts").read(content)  # type: ignore[misc]
    assert machine_to_config(again) == machine_to_config(model)


def test_extract_models_gives_every_machine_with_its_line() -> None:
    text = (CORPUS / "07_several.ts").read_text(encoding="utf-8")
    found = list(extract_models(text))
    assert [(model.id, line) for model, line in found] == [("door", 3), ("bulb", 13), ("(machine)", 19)]
    assert formats.extract_models is extract_models


def test_state_and_event_names_that_look_like_config_keys_are_still_read() -> None:
    model, _ = get_format("xstate-ts").read(  # type: ignore[misc]
        "import { helper } from './h';\n"
        "createMachine({ initial: 'context', states: { context: { on: { event: { actions: helper } } } } })"
    )
    transition = model.root.children[0].transitions[0]
    assert transition.event == "event"
    assert transition.actions[0].type == "helper"


def test_written_inline_code_keeps_its_javascript_name_even_when_the_name_is_taken() -> None:
    fmt = get_format("xstate-ts")
    model, _ = fmt.read("""import { createMachine, log as xlog } from 'xstate';
const log = () => console.log('mine');
const table = { log: () => 2 };
createMachine({ entry: [log, xlog('hi'), table['log']], on: { E: { actions: log } } });""")  # type: ignore[misc]
    content, _ = fmt.write(model)  # type: ignore[misc]
    assert isinstance(content, str)
    assert "import { createMachine, log } from 'xstate';" in content
    again, _ = fmt.read(content)  # type: ignore[misc]
    assert machine_to_config(again) == machine_to_config(model)
    assert [action.type for action in again.root.entry] == ["log", "xstate.log", "log"]


def test_writing_source_back_keeps_the_export_name() -> None:
    source = ("import { createMachine } from 'xstate';\n"
              "export const payment = createMachine({ id: 'checkout', initial: 'a', states: { a: {} } });\n")
    written = formats.convert(source, "xstate-ts")["content"]
    assert "export const payment = createMachine(" in written
    # From a JSON config there is no export name: the machine id names it, as before.
    assert "export const checkoutMachine = " in formats.convert({"id": "checkout", "initial": "a", "states": {"a": {}}},
                                                                 "xstate-ts")["content"]


def test_values_extraction_did_not_evaluate_are_written_as_they_were_and_warned() -> None:
    """statelyai/xstate's tiles example: `tiles: range(16)` (range is the module's own function)."""
    config = {"id": "tiles", "context": {"tiles": {"$expr": "range(16)"}}, "initial": "a", "states": {"a": {}}}
    _, text, warnings = write_format(parse_machine(config), "xstate-ts")
    assert isinstance(text, str) and "tiles: range(16)" in text
    (kept,) = [w for w in warnings if w["code"] == "expression_kept"]
    assert "'range(16)'" in kept["message"] and "names they use are defined" in kept["message"]
    _, _, plain_warnings = write_format(parse_machine({"id": "t", "context": {"tiles": [1]}}), "xstate-ts")
    assert "expression_kept" not in {w["code"] for w in plain_warnings}
