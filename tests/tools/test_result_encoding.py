"""The pipeline refuses a result JSON cannot hold, and no tool leaks JavaScript's `undefined`.

Stage 5 of `run_call` encodes the result strictly: an engine value that escaped a tool (the
sandbox's `UNDEFINED`, a set, an object) is `internal_error` naming its type, never a string
made by `default=str` that each face would show differently or a crash in the server's encoder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from statekit import tools
from statekit.engine.evaluation import UNDEFINED
from statekit.errors import ToolError
from statekit.tools.registry import ToolContext, ToolSpec, run_call

CORPUS = Path(__file__).resolve().parents[1] / "extract" / "corpus"


def _spec(value: Any) -> ToolSpec:
    return ToolSpec(
        name="demo_leak",
        title="Leaks a value",
        description="Returns a value JSON cannot hold.",
        input_schema={"type": "object", "properties": {}, "additionalProperties": False},
        output_schema={"type": "object"},
        function=lambda _arguments: {"value": value},
    )


@pytest.mark.parametrize("value", [UNDEFINED, {1, 2}, object()], ids=["undefined", "set", "object"])
def test_a_result_json_cannot_hold_is_internal_error(value: Any) -> None:
    with pytest.raises(ToolError) as raised:
        run_call(_spec(value), {}, ToolContext())
    assert raised.value.code == "internal_error"
    assert "JSON cannot hold" in raised.value.message


@pytest.mark.parametrize("algorithm", ["shortest", "simple"])
def test_paths_of_a_machine_whose_code_assigns_undefined_are_json(algorithm: str) -> None:
    # setup() helpers whose inline assign yields `undefined` for `volume` (XState drops the key).
    source = (CORPUS / "45_setup_helpers.ts").read_text()
    result = tools.call("generate_graph_paths", {"machine": source, "algorithm": algorithm})
    text = json.dumps(result)
    assert "UNDEFINED" not in text
    contexts = [path["state"]["context"] for path in result["paths"]]
    assert any("volume" not in context for context in contexts), contexts
