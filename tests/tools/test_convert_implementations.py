"""convert_machine says what of the named guards and actions will not run (issue 23, item 5).

On e361e51 a named guard became `cond="hasKey"` with no warning, and statekit's own SCXML
interpreter then failed with a ReferenceError. Now a guard the source implements in plain
ECMAScript is inlined into the cond (and runs), and every other named guard or action is a
warning.
"""

from __future__ import annotations

from typing import Any

from statekit.tools import call

EVENT_GUARD = """import { setup } from 'xstate';
export const machine = setup({ guards: { isBig: ({ context, event }) => event.size > context.limit } }).createMachine({
  initial: 'small', context: { limit: 3 },
  states: { small: { on: { CHECK: { target: 'big', guard: 'isBig' } } }, big: {} },
});
"""

UNIMPLEMENTED = {"initial": "a", "states": {"a": {"on": {"GO": {"target": "b", "guard": "hasKey", "actions": "notify"}}},
                                            "b": {}}}


def _codes(result: dict[str, Any]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for item in result["warnings"]:
        found.setdefault(item["code"], []).append(item["path"])
    return found


def test_named_guards_and_actions_without_implementation_are_warned() -> None:
    result = call("convert_machine", {"machine": UNIMPLEMENTED, "to": "scxml"})
    codes = _codes(result)
    assert codes["guard_not_implemented"] == ["states.a.on.GO[0].guard"]
    assert codes["action_not_implemented"] == ["states.a.on.GO[0].actions[0]"]
    assert 'cond="hasKey"' in result["content"]


def test_a_source_guard_is_inlined_and_runs_in_scxml() -> None:
    result = call("convert_machine", {"machine": EVENT_GUARD, "to": "scxml"})
    assert "guard_not_implemented" not in _codes(result)
    assert "event.size" in result["content"]
    steps = call("simulate_machine", {"machine": result["content"],
                                      "events": [{"type": "CHECK", "size": 2}, {"type": "CHECK", "size": 5}]})["steps"]
    assert [(step["configuration"], step["errors"]) for step in steps] == [(["small"], []), (["small"], []), (["big"], [])]


def test_a_source_guard_reading_module_names_is_not_inlined_but_said() -> None:
    source = EVENT_GUARD.replace("import { setup } from 'xstate';", "import { setup } from 'xstate';\nimport { LIMIT } from './l';")
    source = source.replace("event.size > context.limit", "event.size > LIMIT")
    result = call("convert_machine", {"machine": source, "to": "scxml"})
    [message] = [w["message"] for w in result["warnings"] if w["code"] == "implementation_not_carried"]
    assert "isBig" in message and "ReferenceError" in message


def test_other_targets_name_the_implementations_they_drop() -> None:
    result = call("convert_machine", {"machine": EVENT_GUARD, "to": "xstate"})
    assert _codes(result)["implementation_not_carried"] == ["states.small.on.CHECK[0].guard"]
