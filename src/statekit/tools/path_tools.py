"""`generate_graph_paths` (and the `statekit paths` command)."""

from __future__ import annotations

import json
from typing import Any

from statekit.analysis.budget import TRUNCATION_MESSAGES
from statekit.analysis.paths import (
    ALGORITHMS,
    DEFAULT_LIMIT,
    DEFAULT_MAX_PATHS,
    GRAPH_REFERENCE,
    MAX_LIMIT,
    MAX_MAX_PATHS,
    generate_graph_paths,
)
from statekit.analysis.simulate import MAX_EVENTS, normalize_events
from statekit.tools.arguments import GUARDS_ARGUMENT, INPUT_ARGUMENT, MACHINE_ARGUMENT
from statekit.tools.inputs import load_implemented
from statekit.tools.registry import ToolSpec, register

STATE_VALUE: dict[str, Any] = {"anyOf": [{"type": "string", "minLength": 1}, {"type": "object", "minProperties": 1}]}
EVENT: dict[str, Any] = {"type": "object", "properties": {"type": {"type": "string"}}, "required": ["type"]}
PATH_STATE: dict[str, Any] = {
    "type": "object",
    "description": "A state as XState's serializeSnapshot identifies it: the state value and the context.",
    "properties": {"value": {"anyOf": [{"type": "string"}, {"type": "object"}]}, "context": {}},
    "required": ["value", "context"],
    "additionalProperties": False,
}
PATH: dict[str, Any] = {
    "type": "object",
    "properties": {
        "state": PATH_STATE,
        "steps": {
            "type": "array",
            "description": "The init step ({state: start, event: xstate.init}), then one step per event; "
                           "a step's state is the state its event led to.",
            "items": {"type": "object", "properties": {"state": PATH_STATE, "event": EVENT},
                      "required": ["state", "event"], "additionalProperties": False},
        },
        "weight": {"type": "integer", "minimum": 0, "description": "The number of events."},
    },
    "required": ["state", "steps", "weight"],
    "additionalProperties": False,
}


def _ratio(what: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "covered": {"type": "integer", "minimum": 0},
            "total": {"type": "integer", "minimum": 0},
            "percent": {"type": "number", "minimum": 0, "maximum": 100},
            "uncovered": {"type": "array", "items": {"type": "string"}, "description": f"The {what} no path covers."},
        },
        "required": ["covered", "total", "percent", "uncovered"],
        "additionalProperties": False,
    }


INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "machine": MACHINE_ARGUMENT,
        "algorithm": {"type": "string", "enum": list(ALGORITHMS), "default": "shortest",
                      "description": "shortest: one path per reachable state; simple: every path visiting no state twice."},
        "maxPaths": {"type": "integer", "minimum": 1, "maximum": MAX_MAX_PATHS, "default": DEFAULT_MAX_PATHS,
                     "description": "Paths returned at most; totalCount counts all."},
        "events": {
            "type": "array",
            "maxItems": MAX_EVENTS,
            "items": {"anyOf": [{"type": "string", "minLength": 1}, EVENT]},
            "description": "Events to try in every state, instead of the machine's own.",
        },
        "toState": {"$ref": "#/$defs/state", "description": "Only paths ending in this state: 'a.b', {a: 'b'} or '#id'."},
        "fromState": {"$ref": "#/$defs/state", "description": "Start in this state value instead of the initial one."},
        "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT,
                  "description": f"(state, event) pairs to try at most (default {DEFAULT_LIMIT})."},
        "guards": GUARDS_ARGUMENT,
        "input": INPUT_ARGUMENT,
    },
    "required": ["machine"],
    "additionalProperties": False,
    "$defs": {"state": STATE_VALUE},
}

OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "paths": {"type": "array", "maxItems": MAX_MAX_PATHS, "items": PATH},
        "coverage": {
            "type": "object",
            "properties": {"states": _ratio("state ids"), "transitions": _ratio("transition ids")},
            "required": ["states", "transitions"],
            "additionalProperties": False,
        },
        "totalCount": {"type": "integer", "minimum": 0, "description": "Every path found, returned or not."},
        "truncated": {"type": "boolean", "description": "True when some paths were left out: more were found than "
                                                         "returned, or the traversal stopped early (truncatedReason)."},
        "truncatedReason": {
            "anyOf": [{"type": "string", "enum": ["paths", *TRUNCATION_MESSAGES]}, {"type": "null"}],
            "description": "paths: more paths than returned; limit / states / memory / time / cancelled: the traversal "
                           "stopped there and the paths are those of the states explored; simplePaths: more simple "
                           "paths than are enumerated.",
        },
        "normalization": {
            "type": "object",
            "description": "How the machine was traversed. mode native: as given, inline code run in the sandbox; "
                           "mode structural: its inline code could not run (reason), so its structure was traversed: "
                           "guards assumed (inlineGuards lists the inline ones by the name `guards` can set), context "
                           "and data actions left out (droppedActions, droppedCode); where guards assumed true make "
                           "eventless transitions loop, the guards of eventless transitions are assumed false "
                           "(eventlessGuardsAssumedFalse). truncation explains a cut.",
            "properties": {
                "mode": {"type": "string", "enum": ["native", "structural"]},
                "reason": {"type": "string"},
                "assumedGuards": {"type": "array", "items": {"type": "string"}},
                "assumedActors": {"type": "array", "items": {"type": "string"}},
                "inlineGuards": {"type": "array", "items": {"type": "string"}},
                "droppedActions": {"type": "array", "items": {"type": "string"}},
                "droppedCode": {"type": "array", "items": {"type": "string"}},
                "contextDropped": {"type": "boolean"},
                "eventlessGuardsAssumedFalse": {"type": "array", "items": {"type": "string"}},
                "truncation": {"type": "string"},
                "opaqueValues": {"type": "array", "items": {"type": "string"},
                                 "description": "Values the source defines elsewhere (e.g. an imported tag) that ran "
                                                "as the text of their reference, with where each is."},
            },
            "required": ["mode", "assumedGuards", "assumedActors"],
            "additionalProperties": False,
        },
        "execution": {
            "type": "object",
            "properties": {
                "engine": {"type": "string"},
                "semantics": {"type": "string"},
                "referenceVersion": {"type": "string"},
                "graphReference": {"type": "string"},
                "algorithm": {"type": "string", "enum": list(ALGORITHMS)},
                "events": {"type": "string", "enum": ["machine", "given"]},
                "statesExplored": {"type": "integer", "minimum": 0},
                "transitionsExplored": {"type": "integer", "minimum": 0},
                "iterations": {"type": "integer", "minimum": 0},
                "limit": {"type": "integer", "minimum": 1},
                "graphBytes": {"type": "integer", "minimum": 0,
                               "description": "Bytes the explored graph keeps (state records and edge arrays, as "
                                              "sys.getsizeof counts them; contexts not included)."},
                "assumedGuards": {"type": "array", "items": {"type": "string"}},
                "assumedActors": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["engine", "semantics", "referenceVersion", "graphReference", "algorithm", "events",
                         "statesExplored", "transitionsExplored", "iterations", "limit", "graphBytes", "assumedGuards",
                         "assumedActors"],
            "additionalProperties": False,
        },
    },
    "required": ["paths", "coverage", "totalCount", "truncated", "truncatedReason", "normalization", "execution"],
    "additionalProperties": False,
}

DESCRIPTION = (
    "Use to find event sequences that reach each state (test cases, how to get somewhere): shortest or "
    f"simple paths exactly as XState's graph library ({GRAPH_REFERENCE}) finds them, with state and "
    "transition coverage. Always answers: past its budget it returns what it explored with truncated and "
    "truncatedReason. Semantics in docs/paths.md."
)


def _generate(arguments: dict[str, Any]) -> dict[str, Any]:
    events = normalize_events(arguments["events"], allow_wildcard=True) if arguments.get("events") is not None else None
    return generate_graph_paths(
        load_implemented(arguments["machine"]), arguments.get("algorithm", "shortest"), events=events, to_state=arguments.get("toState"),
        from_state=arguments.get("fromState"), limit=arguments.get("limit"), guards=arguments.get("guards"),
        input_value=arguments.get("input"), max_paths=arguments.get("maxPaths", DEFAULT_MAX_PATHS),
    )


def _event_text(event: dict[str, Any]) -> str:
    extra = {key: value for key, value in event.items() if key != "type"}
    return f"{event['type']} {json.dumps(extra)}" if extra else str(event["type"])


def _value_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def summarize_paths(result: dict[str, Any]) -> str:
    """The paths as lines of events, then the counts and the coverage."""
    lines = []
    for path in result["paths"]:
        events = " -> ".join(_event_text(step["event"]) for step in path["steps"][1:]) or "(start)"
        lines.append(f"{_value_text(path['state']['value'])} [{path['weight']}]: {events}")
    shown = len(result["paths"])
    more = f" ({result['totalCount'] - shown} not shown)" if result["truncated"] else ""
    lines.append(f"{result['totalCount']} {result['execution']['algorithm']} path(s){more}")
    for kind in ("states", "transitions"):
        ratio = result["coverage"][kind]
        lines.append(f"{kind} covered: {ratio['covered']}/{ratio['total']} ({ratio['percent']}%)")
    return "\n".join(lines)


register(
    ToolSpec(
        name="generate_graph_paths",
        title="Generate paths through a state machine",
        description=DESCRIPTION,
        input_schema=INPUT_SCHEMA,
        output_schema=OUTPUT_SCHEMA,
        function=_generate,
        summarize=summarize_paths,
    )
)
