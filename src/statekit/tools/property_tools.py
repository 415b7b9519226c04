"""`check_machine_properties`: properties proven over a machine's state graph."""

from __future__ import annotations

import json
from typing import Any

from statekit.analysis.properties import (
    DEFAULT_MAX_STATES,
    MAX_MAX_STATES,
    MAX_PROPERTIES,
    check_machine_properties,
)
from statekit.tools.arguments import GUARDS_ARGUMENT, INPUT_ARGUMENT, MACHINE_ARGUMENT
from statekit.tools.inputs import load_implemented
from statekit.tools.registry import ToolSpec, register

#: Defined once in the input schema's `$defs` (`STATE_DEFINITION`) and referenced by every property.
STATE = {"$ref": "#/$defs/state"}
STATE_DEFINITION = {"anyOf": [{"type": "string"}, {"type": "object"}],
                    "description": "A state id ('#id', 'machine.child') or state value ('a.b', {a: 'b'})."}
PROPERTY_SCHEMA: dict[str, Any] = {
    "oneOf": [
        {"type": "object", "properties": {"type": {"const": "reachable"}, "state": STATE},
         "required": ["type", "state"], "additionalProperties": False,
         "description": "Some path reaches state."},
        {"type": "object", "properties": {"type": {"const": "unreachable"}, "state": STATE},
         "required": ["type", "state"], "additionalProperties": False,
         "description": "No path reaches state."},
        {"type": "object", "properties": {"type": {"const": "precedes"}, "first": STATE, "then": STATE},
         "required": ["type", "first", "then"], "additionalProperties": False,
         "description": "`then` is never reached before `first`."},
        {"type": "object", "properties": {"type": {"const": "deadlockFree"}},
         "required": ["type"], "additionalProperties": False,
         "description": "Every reachable non-final state can move."},
        {"type": "object", "properties": {"type": {"const": "canAlwaysReach"}, "state": STATE},
         "required": ["type", "state"], "additionalProperties": False,
         "description": "state stays reachable from everywhere."},
    ],
}
TRACE = {"type": "object", "properties": {"events": {"type": "array", "items": {"type": "object"}},
                                          "states": {"type": "array"}},
         "required": ["events", "states"],
         "description": "The shortest path: the events from the start, and the state value before the first "
                        "event and after each one (replays in simulate_machine)."}


def _check(arguments: dict[str, Any]) -> dict[str, Any]:
    implemented = load_implemented(arguments["machine"])
    result = check_machine_properties(
        implemented, arguments["properties"], guards=arguments.get("guards"), max_states=arguments.get("maxStates"),
        input_value=arguments.get("input"))
    result["normalization"]["format"] = implemented.format
    return result


def _value_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def _trace_text(trace: dict[str, Any]) -> str:
    """`draft --SUBMIT--> review --PAY_NOW--> discharged`."""
    parts = [_value_text(trace["states"][0])]
    for event, state in zip(trace["events"], trace["states"][1:], strict=True):
        parts.append(f"--{event['type']}--> {_value_text(state)}")
    return " ".join(parts)


def summarize(result: dict[str, Any]) -> str:
    lines = []
    for item in result["results"]:
        prop = item["property"]
        name = prop["type"] + "".join(f" {prop[k]}" for k in ("state", "first", "then") if k in prop)
        verdict = {True: "holds", False: "FAILS", None: "undecided (budget ran out)"}[item["holds"]]
        lines.append(f"{name}: {verdict}")
        trace = item.get("counterexample") or item.get("witness")
        if trace is not None:
            kind = "counterexample" if "counterexample" in item else "witness"
            lines.append(f"  {kind}: {_trace_text(trace)}")
    execution = result["execution"]
    lines.append(f"{execution['statesExplored']} states explored"
                 + ("" if execution["exhaustive"] else f" (not all: {execution['stopped']})") + ".")
    return "\n".join(lines)


register(ToolSpec(
    name="check_machine_properties",
    title="Prove properties of a state machine",
    description=(
        "Use to prove a machine can or cannot reach a state, never deadlocks, or orders two states, over every "
        "reachable configuration; each result has the shortest witness or counterexample."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "machine": MACHINE_ARGUMENT,
            "properties": {"type": "array", "minItems": 1, "maxItems": MAX_PROPERTIES, "items": PROPERTY_SCHEMA},
            "guards": GUARDS_ARGUMENT,
            "maxStates": {"type": "integer", "minimum": 1, "maximum": MAX_MAX_STATES,
                          "description": f"States to explore at most (default {DEFAULT_MAX_STATES})."},
            "input": INPUT_ARGUMENT,
        },
        "required": ["machine", "properties"],
        "additionalProperties": False,
        "$defs": {"state": STATE_DEFINITION},
    },
    output_schema={
        "type": "object",
        "properties": {
            "results": {"type": "array", "items": {"type": "object", "properties": {
                "property": {"type": "object"}, "holds": {"type": ["boolean", "null"]},
                "witness": TRACE, "counterexample": TRACE,
                "explored": {"type": "integer"}, "exhaustive": {"type": "boolean"}},
                "required": ["property", "holds", "explored", "exhaustive"]}},
            "normalization": {"type": "object"},
            "execution": {"type": "object"},
        },
        "required": ["results", "normalization", "execution"],
    },
    function=_check,
    summarize=summarize,
))
