"""validate_machine finds typos and garbage (issue 23, item 4).

The keys statekit knows are XState v5's: read here by the TypeScript compiler from the installed
xstate package's declarations (tests/oracle/config_keys.mjs), so the sets stay XState's. On
e361e51 `{}`, `{"foo": 1}`, a bare transition and the typos `taget` / `entyr` all gave "0 errors".
"""

from __future__ import annotations

from typing import Any

import pytest

from node_oracle import ORACLE_DIR, node_ready, run_node
from statekit.analysis.config_keys import (
    INVOKE_KEYS,
    MACHINE_KEYS,
    STATE_NODE_KEYS,
    TRANSITION_KEYS,
)
from statekit.tools import call

PACKAGES = [ORACLE_DIR / "node_modules" / "xstate", ORACLE_DIR / "extract" / "node_modules" / "typescript"]


@pytest.mark.needs(node_ready(PACKAGES), "node, xstate and typescript", "npm ci in tests/oracle and tests/oracle/extract")
def test_the_key_sets_are_xstates_own_types() -> None:
    keys = run_node(ORACLE_DIR / "config_keys.mjs", packages=PACKAGES, development=False)
    assert set(keys["stateNode"]) == STATE_NODE_KEYS
    assert set(keys["createMachine"]) == MACHINE_KEYS
    assert set(keys["machine"]) <= MACHINE_KEYS
    assert set(keys["transition"]) == TRANSITION_KEYS
    assert set(keys["invoke"]) == INVOKE_KEYS


def _issues(machine: Any) -> tuple[bool, list[tuple[str, str, str]]]:
    result = call("validate_machine", {"machine": machine})
    return result["ok"], [(i["code"], i["path"], i["message"]) for i in result["issues"]]


def test_an_empty_machine_is_flagged() -> None:
    ok, issues = _issues({})
    assert not ok and [code for code, _path, _message in issues] == ["empty_machine"]


def test_an_unknown_key_alone_is_flagged() -> None:
    ok, issues = _issues({"foo": 1})
    assert not ok
    assert ("unknown_key", "foo") in [(code, path) for code, path, _message in issues]
    assert "empty_machine" in [code for code, _path, _message in issues]


@pytest.mark.parametrize("machine", [{"target": "b"}, {"target": "b", "actions": ["notify"]}, {"guard": "ok", "target": "x"}])
def test_a_bare_transition_is_flagged(machine: dict[str, Any]) -> None:
    ok, issues = _issues(machine)
    assert not ok and [code for code, _path, _message in issues] == ["transition_not_machine"]


def test_typos_are_caught_with_what_was_meant() -> None:
    ok, issues = _issues({"initial": "a", "states": {"a": {"entyr": ["x"], "on": {"GO": {"taget": "b"}}}, "b": {},
                                                       "c": {"invoke": {"src": "load", "onDnoe": "a"}}}})
    found = {path: message for code, path, message in issues if code == "unknown_key"}
    assert "did you mean `entry`?" in found["states.a.entyr"]
    assert "did you mean `target`?" in found["states.a.on.GO[0].taget"]
    assert "did you mean `onDone`?" in found["states.c.invoke[0].onDnoe"]
    assert ok  # warnings: XState builds the machine (and ignores the keys)


def test_every_key_xstate_defines_is_silent() -> None:
    machine = {
        "id": "m", "initial": "a", "version": "1", "types": {}, "schemas": {}, "context": {}, "options": {},
        "description": "d", "meta": {}, "tags": [], "output": {}, "order": 0,
        "states": {
            "a": {"id": "a", "type": "compound", "initial": "x", "entry": [], "exit": [], "tags": ["t"], "meta": {},
                  "description": "d", "order": 1,
                  "on": {"GO": {"target": "b", "guard": "g", "actions": [], "reenter": False, "meta": {}, "description": "d"}},
                  "states": {"x": {}, "h": {"type": "history", "history": "deep", "target": "x"}},
                  "invoke": {"id": "i", "systemId": "s", "src": "load", "input": {}, "onDone": "b", "onError": "b",
                             "onSnapshot": {"actions": []}},
                  "always": {"target": "b", "guard": "never"}, "after": {"10": "b"}, "onDone": "b"},
            "b": {"type": "final"},
        },
    }
    _ok, issues = _issues(machine)
    assert [issue for issue in issues if issue[0] == "unknown_key"] == []


def test_an_xstate_v4_key_names_its_replacement() -> None:
    _ok, issues = _issues({"initial": "a", "states": {"a": {"on": {"GO": {"target": "a", "internal": True}}}}})
    [message] = [message for code, _path, message in issues if code == "unknown_key"]
    assert "XState v4" in message and "reenter" in message
