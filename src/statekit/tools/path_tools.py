"""`generate_graph_paths` (and the `statekit paths` command)."""

from __future__ import annotations

import json
from typing import Any

from statekit.analysis.budget import DEFAULT_MAX_STATES, TRUNCATION_MESSAGES
from statekit.analysis.paths import (
    ALGORITHMS,
    DEFAULT_LIMIT,
    DEFAULT_MAX_PATHS,
    GRAPH_REFERENCE,
    MAX_LIMIT,
    MAX_MAX_PATHS,
    MAX_SIMPLE_PATHS,
    generate_graph_paths,
)
from statekit.analysis.simulate import MAX_EVENTS, normalize_events
from statekit.tools.arguments import MACHINE_ARGUMENT
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
                      "description": "shortest (the default): one shortest path to every reachable state; "
                                     "simple: every path that visits no state twice."},
        "maxPaths": {"type": "integer", "minimum": 1, "maximum": MAX_MAX_PATHS, "default": DEFAULT_MAX_PATHS,
                     "description": f"Paths to return at most, in XState's order (default {DEFAULT_MAX_PATHS}, up to "
                                    f"{MAX_MAX_PATHS}); the others are counted in totalCount. The list also stays "
                                    "within half of the call's output budget: paths past it are left out the same "
                                    "way (truncatedReason 'paths')."},
        "events": {
            "type": "array",
            "maxItems": MAX_EVENTS,
            "items": {"anyOf": [{"type": "string", "minLength": 1}, EVENT]},
            "description": "Events to try in every state, replacing the machine's own event descriptors.",
        },
        "toState": {**STATE_VALUE, "description": "Only paths ending in a state that matches this value "
                                                  "(e.g. 'playing', 'a.b', {a: 'b'}) or '#<state id>'; "
                                                  "the search does not continue past such states."},
        "fromState": {**STATE_VALUE, "description": "Start here (a state value, with the initial context) "
                                                    "instead of the initial state."},
        "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT,
                  "description": "XState's traversal limit: past this many (state, event) pairs the traversal "
                                 f"stops and returns what it found, truncatedReason 'limit' (default {DEFAULT_LIMIT})."},
        "guards": {"type": "object", "additionalProperties": {"type": "boolean"},
                   "description": "Static results for named guards, overriding their implementations; a guard "
                                  "implemented nowhere is true."},
        "input": {"description": "The machine input, given to the xstate.init event."},
    },
    "required": ["machine"],
    "additionalProperties": False,
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
    f"Generates shortest or simple paths through a machine, exactly as XState's graph library ({GRAPH_REFERENCE}) "
    "does: states are {value, context} snapshots; in each state the machine's own event descriptors are sent as "
    "bare {type} events (wildcard descriptors such as 'a.*' and xstate.after.* / xstate.done.actor.* types "
    "included), unless `events` is given, which replaces them. shortest gives one shortest path per reachable "
    "state; simple gives every path that visits no state twice. "
    "algorithm defaults to shortest. "
    f"At most maxPaths paths are returned (default {DEFAULT_MAX_PATHS}, up to {MAX_MAX_PATHS}, and no more than fit "
    "in half of the call's output budget), in XState's order; totalCount counts all and truncated says some were "
    "left out. A step's state is the state its event led to; the first step is the start with "
    "event xstate.init. Coverage is over every path found (not only the returned ones): states are the machine's "
    "state nodes except the root and history nodes, active in some state of a path; transitions are the machine's "
    "transitions (by id) taken in some step, eventless and raised ones included. Guards run as in simulate_machine: "
    "the ones the source implements (setup() or createMachine's second argument) are evaluated, `guards` gives "
    "static results instead, and a guard implemented nowhere is true (listed in normalization.assumedGuards). "
    "An event of type '*' is taken as XState's production build takes it (by the "
    "'*' transitions). Always answers within a budget: past `limit` (state, event) pairs (default "
    f"{DEFAULT_LIMIT}; XState would throw 'Traversal limit exceeded'), past {DEFAULT_MAX_STATES} states, its memory "
    f"or time budget, or {MAX_SIMPLE_PATHS} simple paths, it returns the paths of what it explored with "
    "truncated true and truncatedReason. When the machine's inline code cannot run (imported names, missing "
    "input), its structure is traversed instead and normalization says so (mode structural)."
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
