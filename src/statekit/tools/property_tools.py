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
from statekit.tools.arguments import MACHINE_ARGUMENT
from statekit.tools.inputs import load_implemented
from statekit.tools.registry import ToolSpec, register

STATE = {"anyOf": [{"type": "string"}, {"type": "object"}],
         "description": "A state id (`machine.child`, or `#id`) or a state value (dotted path or object), "
                        "matched as snapshot.matches does."}
PROPERTY_SCHEMA: dict[str, Any] = {
    "oneOf": [
        {"type": "object", "properties": {"type": {"const": "reachable"}, "state": STATE},
         "required": ["type", "state"], "additionalProperties": False,
         "description": "Some path from the start reaches the state."},
        {"type": "object", "properties": {"type": {"const": "unreachable"}, "state": STATE},
         "required": ["type", "state"], "additionalProperties": False,
         "description": "No path from the start reaches the state."},
        {"type": "object", "properties": {"type": {"const": "precedes"}, "first": STATE, "then": STATE},
         "required": ["type", "first", "then"], "additionalProperties": False,
         "description": "No path reaches `then` without having been in `first` in an earlier state."},
        {"type": "object", "properties": {"type": {"const": "deadlockFree"}},
         "required": ["type"], "additionalProperties": False,
         "description": "Every reachable state that is not final can still change on some event."},
        {"type": "object", "properties": {"type": {"const": "canAlwaysReach"}, "state": STATE},
         "required": ["type", "state"], "additionalProperties": False,
         "description": "From every reachable state, the state stays reachable."},
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
        "Checks reachable, unreachable, precedes, deadlockFree and canAlwaysReach over every configuration the "
        "machine can reach (the traversal of generate_graph_paths: the machine's own events, guards supplied or "
        "assumed true, context-sensitive where inline code runs). Each result says whether the property holds "
        "(null when maxStates ran out first), with the shortest witness or counterexample as events and states."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "machine": MACHINE_ARGUMENT,
            "properties": {"type": "array", "minItems": 1, "maxItems": MAX_PROPERTIES, "items": PROPERTY_SCHEMA},
            "guards": {"type": "object", "additionalProperties": {"type": "boolean"},
                       "description": "Static results for named guards, overriding their implementations (a guard "
                                      "implemented nowhere is assumed true)."},
            "maxStates": {"type": "integer", "minimum": 1, "maximum": MAX_MAX_STATES,
                          "description": f"States to explore at most (default {DEFAULT_MAX_STATES})."},
            "input": {"description": "The machine input, given to the xstate.init event."},
        },
        "required": ["machine", "properties"],
        "additionalProperties": False,
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
