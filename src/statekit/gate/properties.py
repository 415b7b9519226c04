"""`Gate(..., properties=[...])`: a workflow that breaks a required property is never installed.

The properties are `check_machine_properties`' (statekit.analysis.properties), proven over
every configuration the workflow can reach with its own implementations: the gate's guards
run as they will at call time, nothing is assumed. The gate fails closed: a property that
fails, or that the budget leaves undecided, is a `GateConfigError` naming it (with the
shortest counterexample), raised when the gate is made.

This is the gate's one import from above the engine, made only when `properties` is given
(the layer contract lists it as an exception); the analysis it needs has no dependency
beyond the gate's own.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from statekit.engine.machine import Machine
from statekit.errors import ToolError
from statekit.gate.errors import GateConfigError

#: States explored at most when proving a gate's properties.
MAX_STATES = 100_000


def require_properties(
    machine: Machine, properties: Sequence[Mapping[str, Any]], workflow_input: Any = None
) -> None:
    """Raise `GateConfigError` unless every property holds over `machine`'s reachable states."""
    from statekit.analysis.properties import check_on_space, explore_machine_space

    try:
        space = explore_machine_space(machine, input_value=workflow_input, max_states=MAX_STATES)
        results = check_on_space(space, properties, MAX_STATES)["results"]
    except ToolError as error:
        raise GateConfigError(
            f"the workflow's properties cannot be checked: {error.message}"
        ) from None
    for result in results:
        prop = json.dumps(result["property"], separators=(",", ":"))
        if result["holds"] is None:
            raise GateConfigError(
                f"property {prop} is undecided after {result['explored']} states; "
                "the gate refuses a workflow it cannot prove"
            )
        if result["holds"] is False:
            trace = result.get("counterexample")
            shown = (
                (" -> ".join(event["type"] for event in trace["events"]) or "the initial state")
                if trace
                else ""
            )
            raise GateConfigError(
                f"the workflow violates property {prop}"
                + (f": counterexample {shown}" if shown else "")
            )
