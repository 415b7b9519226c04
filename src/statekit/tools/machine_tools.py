"""`validate_machine` and `simulate_machine`."""

from __future__ import annotations

from typing import Any

from statekit.analysis.implemented import ImplementedMachine
from statekit.analysis.simulate import MAX_EVENTS, normalize_events, simulate
from statekit.analysis.validate import (
    ISSUE_CODES,
    SuppliedImplementations,
    sandbox_name_issues,
    summarize,
    validate_model,
)
from statekit.errors import MachineDefinitionError, ToolError
from statekit.formats import Source, detect_format
from statekit.model import parse_machine
from statekit.tools.arguments import GUARDS_ARGUMENT, INPUT_ARGUMENT, MACHINE_ARGUMENT
from statekit.tools.inputs import load_implemented, load_machine_document, load_model
from statekit.tools.registry import ToolSpec, register

JSON_VALUE: dict[str, Any] = {}  # any JSON value


ISSUE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "code": {"type": "string", "enum": sorted(ISSUE_CODES)},
        "severity": {"type": "string", "enum": ["error", "warning"]},
        "message": {"type": "string"},
        "path": {"type": "string", "description": "Config path of the problem, e.g. states.a.on.GO[0]; '' is the root."},
    },
    "required": ["code", "severity", "message", "path"],
    "additionalProperties": False,
}

_NAME_LIST: dict[str, Any] = {"type": "array", "items": {"type": "string"}}


def _validate(arguments: dict[str, Any]) -> dict[str, Any]:
    supplied = _supplied(arguments.get("implementations"))
    machine = Source.of(arguments["machine"])  # parsed once for detection and reading
    try:
        detected = detect_format(machine)
    except ToolError:
        detected = "xstate"
    if detected != "xstate":
        # Another format: its reader builds the model and says what it assumed.
        implemented = load_implemented(machine, detected)
        found = validate_model(implemented.model, _with_source(supplied, implemented))
        found.extend(sandbox_name_issues(implemented.implementations.get("moduleScope") or {}))
        result = summarize(found)
        result["normalization"] = {"format": implemented.format, "assumed": list(implemented.assumed)}
        return result
    document = load_machine_document(machine)
    try:
        model = parse_machine(document)
    except MachineDefinitionError as error:
        return {"ok": False, "issues": [{"code": "invalid_config", "severity": "error",
                                         "message": error.message, "path": error.path}]}
    return summarize(validate_model(model, supplied))


def _supplied(value: dict[str, list[str]] | None) -> SuppliedImplementations:
    lists = value or {}
    return SuppliedImplementations(**{key: frozenset(lists.get(key, [])) for key in ("guards", "actions", "delays", "actors")})


def _with_source(supplied: SuppliedImplementations, source: ImplementedMachine) -> SuppliedImplementations:
    """The supplied names plus those the source's own `setup({...})` / `provide({...})` implements
    (an unresolvable group, `{"$ref": ...}`, implements nothing statekit can name)."""
    def names(kind: str) -> frozenset[str]:
        group = source.implementations.get(kind)
        own = frozenset(group) if isinstance(group, dict) and "$ref" not in group else frozenset()
        return frozenset(getattr(supplied, kind)) | own
    return SuppliedImplementations(**{kind: names(kind) for kind in ("guards", "actions", "delays", "actors")})


def _validate_summary(result: dict[str, Any]) -> str:
    issues = result["issues"]
    errors = sum(1 for i in issues if i["severity"] == "error")
    warnings = len(issues) - errors
    head = "valid" if result["ok"] else "invalid"
    lines = [f"Machine is {head}: {errors} error(s), {warnings} warning(s)."]
    lines.extend(f"- {i['severity']} {i['code']} at {i['path'] or '(root)'}: {i['message']}" for i in issues[:20])
    if len(issues) > 20:
        lines.append(f"... and {len(issues) - 20} more")
    return "\n".join(lines)


register(
    ToolSpec(
        name="validate_machine",
        title="Validate a state machine",
        description=(
            "Use first on any machine you write or edit: finds bad targets, missing initial states, duplicate "
            "ids, unreachable states and eventless loops, without running it."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "machine": MACHINE_ARGUMENT,
                "implementations": {
                    "type": "object",
                    "description": "Implementation names you will supply (others are warned about).",
                    "properties": {"guards": _NAME_LIST, "actions": _NAME_LIST, "delays": _NAME_LIST, "actors": _NAME_LIST},
                    "additionalProperties": False,
                },
            },
            "required": ["machine"],
            "additionalProperties": False,
        },
        output_schema={
            "type": "object",
            "properties": {
                "ok": {"type": "boolean"},
                "issues": {"type": "array", "items": ISSUE_SCHEMA},
                "normalization": {
                    "type": "object",
                    "description": "For machines in another format than an XState config: the format, and the "
                                   "defaults a structure-only format (Mermaid, D2, XGraph without semantics) filled in.",
                    "properties": {"format": {"type": "string"}, "assumed": {"type": "array"}},
                    "required": ["format", "assumed"],
                },
            },
            "required": ["ok", "issues"],
            "additionalProperties": False,
        },
        function=_validate,
        summarize=_validate_summary,
    )
)


def _simulate(arguments: dict[str, Any]) -> dict[str, Any]:
    machine = Source.of(arguments["machine"])  # parsed once for detection and reading
    if _is_scxml(machine):
        return _simulate_scxml(arguments)
    if arguments.get("runUntilIdle"):
        raise ToolError("invalid_input", "`runUntilIdle` applies to SCXML documents only")
    events = normalize_events(arguments["events"])
    guards = arguments.get("guards")
    implemented = load_implemented(machine)
    result = simulate(implemented, events, arguments.get("input"), guards)
    if implemented.assumed:
        result["normalization"]["assumed"] = list(implemented.assumed)
    return result


def _is_scxml(machine: Source) -> bool:
    try:
        return isinstance(machine.value, str) and detect_format(machine) == "scxml"
    except ToolError:
        return False


def _simulate_scxml(arguments: dict[str, Any]) -> dict[str, Any]:
    """SCXML runs with its own semantics: its conditions are evaluated, so no guard is given."""
    from statekit.analysis.simulate_scxml import simulate_scxml

    for name in ("guards", "input"):
        if arguments.get(name) is not None:
            raise ToolError("invalid_input", f"`{name}` does not apply to SCXML: the document's datamodel "
                                             "evaluates its own conditions and data")
    return simulate_scxml(arguments["machine"], arguments.get("events"),
                          run_until_idle=bool(arguments.get("runUntilIdle")))


def _simulate_summary(result: dict[str, Any]) -> str:
    lines = []
    for step in result["steps"]:
        value = step["value"]
        actions = f" actions: {', '.join(step['actions'])}" if step["actions"] else ""
        lines.append(f"{step['event']['type']} -> {value} ({step['status']}){actions}")
    assumed = result["normalization"]["assumedGuards"]
    if assumed:
        lines.append(f"Assumed true: {', '.join(assumed)}")
    if result["execution"]["stopped"]:
        lines.append(f"Stopped: {result['execution']['stopped']}")
    return "\n".join(lines)


STEP_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "event": {"type": "object", "properties": {"type": {"type": "string"}}, "required": ["type"]},
        "value": {"anyOf": [{"type": "string"}, {"type": "object"}]},
        "context": JSON_VALUE,
        "status": {"type": "string", "enum": ["active", "done", "error", "stopped"]},
        "tags": {"type": "array", "items": {"type": "string"}},
        "output": JSON_VALUE,
        "actions": {"type": "array", "items": {"type": "string"}},
        "error": {"type": "string"},
    },
    "required": ["event", "value", "context", "status", "tags", "output", "actions"],
}

register(
    ToolSpec(
        name="simulate_machine",
        title="Simulate events through a state machine",
        description=(
            f"Use to see what a machine does on events (up to {MAX_EVENTS}): per step its state, context, tags, "
            "output and actions, with XState v5 semantics (SCXML's for SCXML). Send delayed and actor events "
            "yourself, e.g. xstate.after.1000.<stateId>."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "machine": MACHINE_ARGUMENT,
                "events": {
                    "type": "array",
                    "maxItems": MAX_EVENTS,
                    "items": {"anyOf": [{"type": "string"}, {"type": "object", "properties": {"type": {"type": "string"}},
                                                              "required": ["type"]},
                                        {"type": "object", "description": "SCXML: let time pass",
                                         "properties": {"advanceMs": {"type": "number", "minimum": 0}},
                                         "required": ["advanceMs"]}]},
                },
                "runUntilIdle": {"type": "boolean", "description": "SCXML: then run the clock until idle."},
                "input": INPUT_ARGUMENT,
                "guards": GUARDS_ARGUMENT,
            },
            "required": ["machine", "events"],
            "additionalProperties": False,
        },
        output_schema={
            "type": "object",
            "properties": {
                "steps": {"type": "array", "items": STEP_SCHEMA},
                "normalization": {
                    "type": "object",
                    "properties": {
                        "assumedGuards": {"type": "array", "items": {"type": "string"}},
                        "assumedActors": {"type": "array", "items": {"type": "string"}},
                        "format": {"type": "string"},
                    },
                    "required": ["assumedGuards"],
                },
                "execution": {
                    "type": "object",
                    "properties": {
                        "engine": {"type": "string"},
                        "semantics": {"type": "string"},
                        "referenceVersion": {"type": "string"},
                        "eventsProcessed": {"type": "integer"},
                        "eventsGiven": {"type": "integer"},
                        "stopped": {"type": ["string", "null"]},
                    },
                    "required": ["engine", "eventsProcessed"],
                },
            },
            "required": ["steps", "normalization", "execution"],
        },
        function=_simulate,
        summarize=_simulate_summary,
    )
)

__all__ = ["load_model"]
