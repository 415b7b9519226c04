"""`diff_machines`, `apply_machine_patches` and `review_machine_implementation`, plus their CLI commands.

None of these tools writes a file or touches Git: they return documents and text, and the
caller (a coding agent, a person) decides what to save.
"""

from __future__ import annotations

from typing import Any

from statekit.analysis.diff import SEMANTIC_CHANGES_VERSION, diff_models
from statekit.analysis.patch_catalog import OPERATIONS, patches_json_schema
from statekit.analysis.patches import apply_patches, check_patch
from statekit.analysis.patchgen import generate_patches
from statekit.analysis.review import REVIEW_FILE_NAME, review
from statekit.errors import ToolError
from statekit.model import MachineModel
from statekit.tools.arguments import machine_argument
from statekit.tools.format_arguments import (
    explain_format_refusal,
    listed_format_argument,
    writable_format_argument,
)
from statekit.tools.inputs import load_model
from statekit.tools.references import PATCHES_URI
from statekit.tools.registry import ToolSpec, register
from statekit.tools.schema_check import SchemaViolation


def _patch_signature(name: str) -> str:
    """`createState(parentId, key, type?, history?, index?)`: an operation and its fields."""
    operation = OPERATIONS[name]
    fields = [*operation.required, *(f"{field}?" for field in operation.optional)]
    return f"{name}({','.join(fields)})"


#: The complete patch schema (every operation with its fields' JSON Schemas): checked at stage 2
#: (`ToolSpec.argument_schemas`) and served as the resource `PATCHES_URI`; the tool listing
#: carries the operations' signatures instead (`PATCHES_ARGUMENT`).
PATCHES_SCHEMA: dict[str, Any] = patches_json_schema()

PATCHES_ARGUMENT: dict[str, Any] = {
    "type": "array",
    "description": (
        "Semantic patches, applied in order, e.g. {\"op\": \"createTransition\", \"sourceId\": \"player.playing\", "
        "\"eventType\": \"STOP\", \"targetId\": \"player.stopped\"}. Ids: states <machine-id>.<key>[.<child>...], "
        "transitions <source id>:<event>:<index>. Operations (field? is optional; null clears it): "
        f"{'; '.join(_patch_signature(name) for name in OPERATIONS)}. targetId: a state id, a list of ids or "
        "null; guard: a name or {type, params}; actions: a list of names or {type, params}. Every field's "
        f"schema: resource {PATCHES_URI}."
    ),
    "items": {"type": "object", "required": ["op"]},
}
#: `review_machine_implementation` takes the patches given to `apply_machine_patches`.
PROPOSED_PATCHES_ARGUMENT: dict[str, Any] = {
    "type": "array",
    "description": f"The proposed patches, as given to apply_machine_patches (resource {PATCHES_URI}).",
    "items": {"type": "object", "required": ["op"]},
}

DEFAULT_OUTPUT_FORMAT = "xstate-json"
_CHANGE_LIST: dict[str, Any] = {"type": "array", "items": {"type": "object"}}
_DIFF_PART: dict[str, Any] = {
    "type": "object",
    "properties": {"added": _CHANGE_LIST, "removed": _CHANGE_LIST, "updated": _CHANGE_LIST},
    "required": ["added", "removed", "updated"],
}


def _load(arguments: dict[str, Any], name: str) -> MachineModel:
    try:
        return load_model(arguments[name])
    except ToolError as error:
        raise ToolError(error.code, f"`{name}`: {error.message}", error.details) from None


def _explain_patch_refusal(arguments: dict[str, Any], violation: SchemaViolation) -> str | None:
    """The patch checker's own words for a refusal under `patches` (it names the closest
    valid operation or field, which a schema message cannot)."""
    if not violation.pointer.startswith("/patches"):
        return None
    patches = arguments.get("patches")
    if not isinstance(patches, list):
        return "`patches` must be a list of patch objects"
    for index, patch in enumerate(patches):
        try:
            check_patch(patch, f"patches[{index}]")
        except ToolError as error:
            return error.message
    # The checker lets it pass; the operation's own schema says what is wrong, not "one of 24".
    from jsonschema.exceptions import best_match
    from jsonschema.validators import Draft202012Validator

    variants = {variant["properties"]["op"]["const"]: variant for variant in PATCHES_SCHEMA["items"]["oneOf"]}
    for index, patch in enumerate(patches):
        variant = variants.get(patch.get("op")) if isinstance(patch, dict) else None
        if variant is None:
            continue
        mismatch = best_match(Draft202012Validator(variant).iter_errors(patch))
        if mismatch is not None:
            where = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in mismatch.absolute_path)
            return f"patches[{index}] ({patch['op']}){where}: {mismatch.message}"
    return None


# --- diff_machines ----------------------------------------------------------------------------


def _diff(arguments: dict[str, Any]) -> dict[str, Any]:
    before, after = _load(arguments, "before"), _load(arguments, "after")
    include = arguments.get("includePatches", False)
    diff = diff_models(before, after)
    result = diff.to_json()
    if include:
        result["patches"] = generate_patches(diff)
    return result


register(
    ToolSpec(
        name="diff_machines",
        title="Compare two state machines",
        description=(
            "Use to see how two machines differ in behaviour, not text: added, removed and updated states "
            "and transitions; includePatches adds the patches that turn `before` into `after`."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "before": {"$ref": "#/$defs/machine"},
                "after": {"$ref": "#/$defs/machine"},
                "includePatches": {"type": "boolean", "default": False},
            },
            "required": ["before", "after"],
            "additionalProperties": False,
            "$defs": {"machine": machine_argument("A machine")},
        },
        output_schema={
            "type": "object",
            "properties": {
                "summary": {"type": "string"},
                "diff": {"type": "object", "properties": {"nodes": _DIFF_PART, "edges": _DIFF_PART},
                         "required": ["nodes", "edges"]},
                "semanticChanges": {
                    "type": "object",
                    "properties": {"version": {"const": SEMANTIC_CHANGES_VERSION}, "changes": _CHANGE_LIST},
                    "required": ["version", "changes"],
                },
                "hasChanges": {"type": "boolean"},
                "patches": {"type": "array", "items": {"type": "object"}},
            },
            "required": ["summary", "diff", "semanticChanges", "hasChanges"],
        },
        function=_diff,
        summarize=lambda result: str(result["summary"]),
    )
)


_explain_to = explain_format_refusal(writable=("to",))
_TO = writable_format_argument("Output format (default xstate-json, a config object).", default=DEFAULT_OUTPUT_FORMAT)

# --- apply_machine_patches --------------------------------------------------------------------


#: How `apply_machine_patches` has always named the two XState formats in its `format` field
#: (the registry's aliases of `xstate` and `yaml`); every other format keeps its registry name.
_RESULT_FORMAT_NAMES = {"xstate": "xstate-json", "yaml": "xstate-yaml"}


def write_document(model: MachineModel, to: str | None) -> tuple[str, Any, list[Any]]:
    """`(format, document, warnings)` of `model` in the requested output format.

    The default is the XState config as a JSON object; any other name goes to the format
    registry (`xstate-yaml`, `scxml`, `xgraph`, `xstate-ts`, ...).
    """
    from statekit.formats import write_format

    name, content, warnings = write_format(model, to or DEFAULT_OUTPUT_FORMAT)
    return _RESULT_FORMAT_NAMES.get(name, name), content, warnings


def _apply(arguments: dict[str, Any]) -> dict[str, Any]:
    before = _load(arguments, "machine")
    patches = arguments["patches"]
    after = apply_patches(before, patches)
    name, document, warnings = write_document(after, arguments.get("to"))
    diff = diff_models(before, after)
    result: dict[str, Any] = {
        "document": document,
        "format": name,
        "patches": patches,
        "behavioralSummary": diff.summary(),
    }
    if warnings:
        result["warnings"] = warnings
    return result


register(
    ToolSpec(
        name="apply_machine_patches",
        title="Apply semantic patches to a machine",
        description=(
            "Use to edit a machine by meaning (add a state, retarget a transition) instead of text: returns "
            "the new document and a behavioralSummary; writes no file."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "machine": machine_argument(),
                "patches": PATCHES_ARGUMENT,
                "to": listed_format_argument(_TO),
            },
            "required": ["machine", "patches"],
            "additionalProperties": False,
        },
        output_schema={
            "type": "object",
            "properties": {
                "document": {"anyOf": [{"type": "object"}, {"type": "string"}]},
                "format": {"type": "string"},
                "patches": {"type": "array"},
                "behavioralSummary": {"type": "string"},
                "warnings": {"type": "array"},
            },
            "required": ["document", "format", "patches", "behavioralSummary"],
        },
        function=_apply,
        argument_schemas={"patches": PATCHES_SCHEMA, "to": _TO},
        summarize=lambda result: str(result["behavioralSummary"]),
        explain_refusal=lambda arguments, violation: (
            _explain_patch_refusal(arguments, violation) or _explain_to(arguments, violation)),
    )
)


# --- review_machine_implementation -------------------------------------------------------------


def _review(arguments: dict[str, Any]) -> dict[str, Any]:
    original, edited = _load(arguments, "original"), _load(arguments, "edited")
    return review(original, edited, arguments["patches"])


def _review_summary(result: dict[str, Any]) -> str:
    counts = ", ".join(f"{len(result[k])} {k}" for k in ("missing", "extra", "divergent"))
    validity = "valid" if result["validation"]["ok"] else "INVALID"
    return f"{result['verdict']}: edited machine is {validity}; {counts}. Artifact: {result['artifact']['name']}"


register(
    ToolSpec(
        name="review_machine_implementation",
        title="Review an edited machine against proposed patches",
        description=(
            "Use after editing a machine's source to check the edit matches the proposed patches: missing, "
            f"extra and divergent changes, and a Markdown {REVIEW_FILE_NAME} for a pull request."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "original": {"$ref": "#/$defs/machine"},
                "edited": {"$ref": "#/$defs/machine"},
                "patches": PROPOSED_PATCHES_ARGUMENT,
            },
            "required": ["original", "edited", "patches"],
            "additionalProperties": False,
            "$defs": {"machine": machine_argument("A machine")},
        },
        output_schema={
            "type": "object",
            "properties": {
                "verdict": {"type": "string", "enum": ["matches", "differs", "invalid"]},
                "validation": {"type": "object"},
                "actualChanges": {"type": "object"},
                "proposedChanges": {"type": "object"},
                "missing": _CHANGE_LIST,
                "extra": _CHANGE_LIST,
                "divergent": _CHANGE_LIST,
                "artifact": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "mediaType": {"type": "string"},
                                   "content": {"type": "string"}},
                    "required": ["name", "mediaType", "content"],
                },
            },
            "required": ["verdict", "validation", "actualChanges", "proposedChanges", "missing", "extra",
                         "divergent", "artifact"],
        },
        function=_review,
        argument_schemas={"patches": PATCHES_SCHEMA},
        summarize=_review_summary,
        explain_refusal=_explain_patch_refusal,
    )
)
