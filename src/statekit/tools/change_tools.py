"""`diff_machines`, `apply_machine_patches` and `review_machine_implementation`, plus their CLI commands.

None of these tools writes a file or touches Git: they return documents and text, and the
caller (a coding agent, a person) decides what to save.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from statekit.analysis.diff import SEMANTIC_CHANGES_VERSION, diff_models
from statekit.analysis.patch_catalog import OPERATIONS
from statekit.analysis.patches import apply_patches, check_patch
from statekit.analysis.patchgen import generate_patches
from statekit.analysis.review import REVIEW_FILE_NAME, review
from statekit.errors import ToolError
from statekit.model import MachineModel
from statekit.tools.format_arguments import explain_format_refusal, writable_format_argument
from statekit.tools.inputs import load_model
from statekit.tools.registry import ToolSpec, register
from statekit.tools.schema_check import SchemaViolation

MACHINE_ARGUMENT: dict[str, Any] = {
    "description": "An XState v5 config object (or {\"machine\": config}), or JSON or YAML text of one.",
    "anyOf": [{"type": "object"}, {"type": "string"}],
}
def _patch_item_schema() -> dict[str, Any]:
    """One patch: `oneOf` the operations of statekit/schemas/patches.schema.json, each with its
    fields, so a client sees what every `op` takes. A refusal is still worded by the patch
    checker (`_explain_patch_refusal`), which names the closest valid operation or field."""
    document = json.loads(resources.files("statekit.schemas").joinpath("patches.schema.json").read_text("utf-8"))
    item: dict[str, Any] = document["items"]
    return item


PATCHES_ARGUMENT: dict[str, Any] = {
    "type": "array",
    "description": (
        "Semantic patches applied in order, e.g. {\"op\": \"createTransition\", \"sourceId\": \"player.playing\", "
        "\"targetId\": \"player.paused\", \"eventType\": \"STOP\"}. Operations (camelCase): "
        f"{', '.join(OPERATIONS)}; each item's schema lists the fields of its `op`."
    ),
    "items": _patch_item_schema(),
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

    variants = {variant["properties"]["op"]["const"]: variant for variant in PATCHES_ARGUMENT["items"]["oneOf"]}
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
            "Compares two machines structurally (not their text): added, removed and updated states and "
            "transitions, recognising renamed and moved states and retargeted transitions. Each change names "
            "the fields that changed (source, target, label, event, guard, actions, reenter, priority, ...). "
            "Layout is ignored; guarded-transition priority and action order count. hasChanges also covers "
            "context, meta, descriptions and schemas; node and edge counts stay structural. Set includePatches "
            "to get patches for apply_machine_patches that rebuild `after` from `before`."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "before": MACHINE_ARGUMENT,
                "after": MACHINE_ARGUMENT,
                "includePatches": {"type": "boolean", "default": False},
            },
            "required": ["before", "after"],
            "additionalProperties": False,
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
            "Applies semantic patches (createState, renameState, createTransition, updateTransition, ...) to a "
            "machine in memory and returns the updated document, the patches and a behavioralSummary of what "
            "changed. Ids are graph entity ids: top-level states are <machine-id>.<state-key>, transitions "
            "<source id>:<event>:<index>. Operation names are camelCase; null clears an optional field. It never "
            "writes files or touches Git: edit your source yourself, then call review_machine_implementation."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "machine": MACHINE_ARGUMENT,
                "patches": PATCHES_ARGUMENT,
                "to": writable_format_argument(
                    "Output format: xstate-json (a config object, the default), xstate-yaml, or any "
                    "format convert_machine writes.", default=DEFAULT_OUTPUT_FORMAT),
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
            "Reviews an agent-edited machine against the original and the proposed patches: validates the edited "
            "machine, derives the behaviour change the edit actually made, and reports missing, extra and "
            f"divergent changes. Returns the Markdown artifact {REVIEW_FILE_NAME} (semantic summary plus before/"
            "after Mermaid stateDiagram-v2 graphs) ready to paste into a pull request. Writes no file, no Git."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "original": MACHINE_ARGUMENT,
                "edited": MACHINE_ARGUMENT,
                "patches": PATCHES_ARGUMENT,
            },
            "required": ["original", "edited", "patches"],
            "additionalProperties": False,
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
        summarize=_review_summary,
        explain_refusal=_explain_patch_refusal,
    )
)
