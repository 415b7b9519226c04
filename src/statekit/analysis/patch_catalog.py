"""The documented set of semantic patch operations: names, fields and their JSON Schemas.

One table drives the argument checks, the error messages (closest names by difflib), the
`patches.schema.json` package file and docs/patches.md, so the four never disagree.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Any

from statekit.errors import ToolError

ANY: dict[str, Any] = {}
STRING: dict[str, Any] = {"type": "string"}
NULLABLE_STRING: dict[str, Any] = {"type": ["string", "null"]}
INDEX: dict[str, Any] = {"type": "integer", "minimum": 0}
STATE_TYPE: dict[str, Any] = {"enum": ["atomic", "compound", "parallel", "final", "history", None]}
TARGETS: dict[str, Any] = {
    "description": "A state id, several state ids (parallel regions), or null for a targetless transition.",
    "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}, "minItems": 1}, {"type": "null"}],
}
GUARD: dict[str, Any] = {
    "description": "An XState v5 guard: a name, {type, params}, or a built-in (xstate.and/or/not/stateIn); null clears.",
    "anyOf": [{"type": "string"}, {"type": "object", "required": ["type"]}, {"type": "null"}],
}
ACTIONS: dict[str, Any] = {
    "description": "Ordered XState v5 actions: names or {type, params} objects; null or [] clears.",
    "anyOf": [
        {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "object", "required": ["type"]}]}},
        {"type": "null"},
    ],
}
SCHEMA_VALUE: dict[str, Any] = {"description": "A JSON Schema, or null to remove it.", "type": ["object", "boolean", "null"]}


@dataclass(frozen=True)
class Operation:
    """One patch operation: what it does and the fields it takes."""

    name: str
    description: str
    required: dict[str, dict[str, Any]] = field(default_factory=dict)
    optional: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def fields(self) -> dict[str, dict[str, Any]]:
        return {**self.required, **self.optional}


def _state(description: str = "The state id, e.g. player.playing; the machine id for the root.") -> dict[str, Any]:
    return {"type": "string", "description": description}


_TRANSITION_FIELDS: dict[str, dict[str, Any]] = {
    "targetId": TARGETS,
    "guard": GUARD,
    "actions": ACTIONS,
    "reenter": {"type": ["boolean", "null"]},
    "description": NULLABLE_STRING,
    "meta": ANY,
    "priority": {**INDEX, "description": "Position among the transitions of the same source and event (0 wins first)."},
}

OPERATIONS: dict[str, Operation] = {
    op.name: op
    for op in (
        Operation(
            "createState", "Add a child state under `parentId` (appended, or at `index`).",
            {"parentId": _state("The parent state id."), "key": STRING},
            {"type": STATE_TYPE, "history": {"enum": ["shallow", "deep"]}, "index": INDEX},
        ),
        Operation(
            "deleteState", "Remove a state and its descendants; transitions into them lose those targets.",
            {"stateId": _state()},
        ),
        Operation(
            "renameState", "Change a state's key (its id follows); targets and `initial` keep pointing at it.",
            {"stateId": _state(), "newKey": STRING},
        ),
        Operation(
            "setStateId",
            "Give a nested state an explicit `id` (targets can then say `#id`), or null to remove it; "
            "targets keep pointing at it. The machine's own id is changed with renameState on the root.",
            {"stateId": _state(), "id": NULLABLE_STRING},
        ),
        Operation(
            "moveState", "Move a state under another parent (or reorder it within its parent with `index`).",
            {"stateId": _state(), "parentId": _state("The new parent state id.")},
            {"index": INDEX},
        ),
        Operation(
            "setInitialState", "Set the initial child of a compound state; null removes `initial`.",
            {"stateId": _state(), "initialStateId": {**NULLABLE_STRING, "description": "The id of a direct child."}},
        ),
        Operation(
            "setStateType", "Set a state's type; null lets XState infer it from the children.",
            {"stateId": _state(), "type": STATE_TYPE},
            {"history": {"enum": ["shallow", "deep"]}, "historyTargetId": TARGETS},
        ),
        Operation(
            "createTransition",
            "Add a transition. The event type chooses where it goes: a normal event (`on`), '' (`always`), "
            "xstate.after.<delay>.<sourceId> (`after`), xstate.done.state.<sourceId> (`onDone`), or "
            "xstate.done.actor.<invokeId> / xstate.error.actor.<invokeId> / xstate.snapshot.<invokeId> "
            "(the invoke's onDone / onError / onSnapshot).",
            {"sourceId": _state("The source state id."), "eventType": STRING},
            {**_TRANSITION_FIELDS, "delay": {"type": ["number", "string"], "description": "Shorthand for an `after` event."}},
        ),
        Operation("deleteTransition", "Remove a transition.", {"transitionId": STRING}),
        Operation(
            "updateTransition",
            "Change a transition in place: event, source, target, guard, actions, reenter, priority, description, meta. "
            "Fields left out keep their value; null clears an optional field.",
            {"transitionId": STRING},
            {"sourceId": _state("A new source state id."), "eventType": STRING, **_TRANSITION_FIELDS},
        ),
        Operation("setEntryActions", "Replace a state's ordered entry actions.", {"stateId": _state(), "actions": ACTIONS}),
        Operation("setExitActions", "Replace a state's ordered exit actions.", {"stateId": _state(), "actions": ACTIONS}),
        Operation(
            "createInvoke", "Invoke an actor in a state (appended, or at `index`).",
            {"stateId": _state(), "src": STRING},
            {"id": NULLABLE_STRING, "input": ANY, "systemId": NULLABLE_STRING, "index": INDEX},
        ),
        Operation(
            "updateInvoke", "Change an invoke of a state; null clears `id`, `input` or `systemId`; `index` reorders.",
            {"stateId": _state(), "invokeId": STRING},
            {"src": STRING, "id": NULLABLE_STRING, "input": ANY, "systemId": NULLABLE_STRING, "index": INDEX},
        ),
        Operation(
            "deleteInvoke", "Remove an invoke and its onDone/onError/onSnapshot transitions.",
            {"stateId": _state(), "invokeId": STRING},
        ),
        Operation("setContext", "Set the machine context; null removes it.", {"context": ANY}),
        Operation(
            "setTags", "Replace a state's tags; null or [] removes them.",
            {"stateId": _state(), "tags": {"type": ["array", "null"], "items": STRING}},
        ),
        Operation("setMeta", "Set a state's meta; null removes it.", {"stateId": _state(), "meta": ANY}),
        Operation(
            "setDescription", "Set a state's description; null removes it.",
            {"stateId": _state(), "description": NULLABLE_STRING},
        ),
        Operation(
            "setOutput", "Set the output of a final state (or the machine root); null removes it.",
            {"stateId": _state(), "output": ANY},
        ),
        Operation("setContextSchema", "Set the JSON Schema of the context (`schemas.context`).", {"schema": SCHEMA_VALUE}),
        Operation("setEventsSchema", "Set the JSON Schemas of the events (`schemas.events`).", {"schema": SCHEMA_VALUE}),
        Operation("setInputSchema", "Set the JSON Schema of the machine input (`schemas.input`).", {"schema": SCHEMA_VALUE}),
        Operation("setOutputSchema", "Set the JSON Schema of the machine output (`schemas.output`).", {"schema": SCHEMA_VALUE}),
    )
}

#: The `schemas` key each schema operation sets.
SCHEMA_OPERATIONS = {
    "setContextSchema": "context",
    "setEventsSchema": "events",
    "setInputSchema": "input",
    "setOutputSchema": "output",
}


def closest(word: str, candidates: list[str] | set[str], limit: int = 3) -> list[str]:
    """The candidates most like `word` (difflib), best first."""
    return difflib.get_close_matches(word, sorted(candidates), n=limit, cutoff=0.4)


def did_you_mean(word: str, candidates: list[str] | set[str]) -> str:
    """`; did you mean 'a', 'b'?` or ''."""
    matches = closest(word, candidates)
    return f"; did you mean {', '.join(repr(m) for m in matches)}?" if matches else ""


def _camel_case(name: str) -> str:
    head, *rest = re.split(r"[_\-\s]+", name)
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def lookup_operation(name: Any, where: str) -> Operation:
    """The operation called `name`, or `invalid_input` naming the closest valid ones."""
    if not isinstance(name, str):
        raise ToolError("invalid_input", f"{where}: `op` must be a string naming an operation, e.g. 'createTransition'")
    if name in OPERATIONS:
        return OPERATIONS[name]
    camel = _camel_case(name)
    if camel in OPERATIONS:
        raise ToolError("invalid_input", f"{where}: unknown operation {name!r}; operation names are camelCase: use {camel!r}")
    lowered = {op.lower(): op for op in OPERATIONS}
    if camel.lower() in lowered:
        raise ToolError("invalid_input", f"{where}: unknown operation {name!r}; did you mean {lowered[camel.lower()]!r}?")
    hint = did_you_mean(camel, set(OPERATIONS)) or f"; valid operations: {', '.join(OPERATIONS)}"
    raise ToolError("invalid_input", f"{where}: unknown operation {name!r}{hint}")


def check_fields(operation: Operation, patch: dict[str, Any], where: str) -> None:
    """Required fields present, no unknown field (with a suggestion), basic JSON types right."""
    for name in operation.required:
        if name not in patch:
            raise ToolError("invalid_input", f"{where}: `{operation.name}` needs `{name}`")
    for name, value in patch.items():
        if name == "op":
            continue
        schema = operation.fields.get(name)
        if schema is None:
            allowed = ", ".join(operation.fields)
            raise ToolError(
                "invalid_input",
                f"{where}: `{operation.name}` has no field `{name}`{did_you_mean(name, set(operation.fields))} "
                f"(fields: {allowed})",
            )
        if not _type_matches(schema, value):
            raise ToolError("invalid_input", f"{where}: `{name}` of `{operation.name}` must be {_describe(schema)}")


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
    "null": (type(None),),
}


def _type_matches(schema: dict[str, Any], value: Any) -> bool:
    if "anyOf" in schema:
        return any(_type_matches(option, value) for option in schema["anyOf"])
    if "enum" in schema:
        return value in schema["enum"]
    declared = schema.get("type")
    if declared is None:
        return True
    names = declared if isinstance(declared, list) else [declared]
    for name in names:
        if isinstance(value, bool) and name in ("integer", "number"):
            continue
        if isinstance(value, _JSON_TYPES[name]):
            return not (name == "integer" and value < schema.get("minimum", value))
    return False


def _describe(schema: dict[str, Any]) -> str:
    if "anyOf" in schema:
        return " or ".join(_describe(option) for option in schema["anyOf"])
    if "enum" in schema:
        return "one of " + ", ".join("null" if v is None else repr(v) for v in schema["enum"])
    declared = schema.get("type", "any value")
    names = declared if isinstance(declared, list) else [declared]
    text = " or ".join(f"a {n}" if n not in ("null", "integer", "array", "object") else
                       {"null": "null", "integer": "an integer", "array": "an array", "object": "an object"}[n]
                       for n in names)
    if "minimum" in schema:
        text += f" >= {schema['minimum']}"
    return text


def patches_json_schema() -> dict[str, Any]:
    """The JSON Schema of a patch list (what `patches.schema.json` holds)."""
    variants = []
    for op in OPERATIONS.values():
        variants.append(
            {
                "title": op.name,
                "description": op.description,
                "type": "object",
                "properties": {"op": {"const": op.name}, **op.fields},
                "required": ["op", *op.required],
                "additionalProperties": False,
            }
        )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://statekit.dev/schemas/patches.schema.json",
        "title": "statekit machine patches",
        "description": (
            "Semantic operations on a state machine, addressed by graph entity ids: state ids such as "
            "player.playing (top-level states are <machine-id>.<state-key>) and transition ids "
            "<source id>:<event or kind>:<index>. Applied in order; null clears an optional field."
        ),
        "type": "array",
        "items": {"oneOf": variants},
    }
