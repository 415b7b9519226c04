"""The XState config statekit writes is read by XState exactly as the config it came from.

Every config of the oracle corpora (tests/oracle/cases, tests/oracle/graph/corpus.py) and a
set of generated machines is built twice with real XState 5.33.3 in node
(tests/oracle/definition.mjs): as given, and as statekit writes it back
(`parse_machine` then `machine_to_config`). XState's reading of both (every state node's
type, initial target and transitions with their events, targets, reenter flags, guards and
action counts) must be the same: a form XState reads differently (a string inside an
`after` array is a targetless transition to XState) fails here.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from node_oracle import node_ready, run_node
from statekit.errors import MachineDefinitionError
from statekit.model import machine_to_config, parse_machine

ROOT = Path(__file__).resolve().parents[2]
ORACLE = ROOT / "tests" / "oracle"
sys.path.insert(0, str(ORACLE / "graph"))
sys.path.insert(0, str(ROOT / "tests"))
import corpus  # noqa: E402

from machine_strategies import machine_configs  # noqa: E402

XSTATE_PACKAGE = ORACLE / "node_modules" / "xstate"
HAVE_XSTATE = node_ready([XSTATE_PACKAGE])
pytestmark = pytest.mark.needs(HAVE_XSTATE, "node and xstate", "cd tests/oracle && npm ci")


def xstate_reading(configs: list[Any]) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = run_node(ORACLE / "definition.mjs", stdin=json.dumps(configs),
                                            packages=[XSTATE_PACKAGE], development=False, timeout=300)
    return result


def corpus_configs() -> list[tuple[str, Any]]:
    configs: list[tuple[str, Any]] = []
    for path in sorted((ORACLE / "cases").glob("*.json")):
        for case in json.loads(path.read_text()):
            configs.append((f"{path.stem}:{case['name']}", case["config"]))
    for name, entry in corpus.MACHINES.items():
        configs.append((f"graph:{name}", {k: v for k, v in entry.items() if k not in corpus.OPTION_KEYS}))
    configs.append(("after-array", {"id": "m", "initial": "a", "states": {
        "a": {"after": {"100": [{"target": "b", "guard": "g"}, "c"], "slow": ["b", "c"]}}, "b": {}, "c": {}}}))
    return configs


def unwrapped(config: Any) -> Any:
    """statekit's `{"machine": config}` document form, as the bare config XState takes."""
    if isinstance(config, dict) and "machine" in config and "states" not in config:
        return config["machine"]
    return config


def written(config: Any) -> Any | None:
    try:
        return machine_to_config(parse_machine(config))
    except MachineDefinitionError:
        return None


def assert_same_reading(named: list[tuple[str, Any]]) -> int:
    pairs = [(name, unwrapped(config), written(config)) for name, config in named]
    pairs = [(name, config, out) for name, config, out in pairs if out is not None]
    readings = xstate_reading([config for _, config, _ in pairs] + [out for _, _, out in pairs])
    originals, rewritten = readings[:len(pairs)], readings[len(pairs):]
    compared = 0
    for (name, _config, out), before, after in zip(pairs, originals, rewritten, strict=True):
        if "error" in before:
            continue  # XState refuses the original (an error case of the corpus)
        assert after == before, f"{name}: XState reads the written config differently\n{json.dumps(out)}"
        compared += 1
    return compared


def test_written_corpus_configs_read_the_same_in_xstate() -> None:
    assert assert_same_reading(corpus_configs()) > 300


def test_after_arrays_keep_their_targets() -> None:
    out = machine_to_config(parse_machine({"id": "m", "initial": "a", "states": {
        "a": {"after": {"100": [{"target": "b"}, {"target": "c"}]}}, "b": {}, "c": {}}}))
    # Not ["b", "c"]: XState spreads each item of an `after` array, so a string is targetless.
    assert out["states"]["a"]["after"]["100"] == [{"target": "b"}, {"target": "c"}]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(machine_configs())
def test_generated_machines_read_the_same_in_xstate(config: dict[str, Any]) -> None:
    assert_same_reading([("generated", config)])
