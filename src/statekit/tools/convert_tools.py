"""`convert_machine`: read a machine in one format, write it in another, through the model."""

from __future__ import annotations

import json
from typing import Any

from statekit.formats import get_format, write_format
from statekit.tools.arguments import machine_argument
from statekit.tools.convert_implementations import prepare_for
from statekit.tools.format_arguments import (
    explain_format_refusal,
    listed_format_argument,
    readable_format_argument,
    writable_format_argument,
)
from statekit.tools.inputs import load_implemented
from statekit.tools.registry import ToolSpec, register

WARNING_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "code": {"type": "string"},
        "message": {"type": "string"},
        "path": {"type": "string", "description": "Where in the source (read) or the model's config (write); '' is the whole machine."},
    },
    "required": ["code", "message", "path"],
    "additionalProperties": False,
}


def _convert(arguments: dict[str, Any]) -> dict[str, Any]:
    # Read with the implementations the source defines, so that the target says what of them it
    # cannot carry (and SCXML gets the guards it can inline): convert_implementations.
    implemented = load_implemented(arguments["machine"], arguments.get("from"))
    target = get_format(arguments["to"]).name
    model, notes = prepare_for(implemented, target)
    name, content, write_warnings = write_format(model, target)
    return {
        "format": name,
        "content": content,
        "warnings": [*implemented.warnings, *notes, *write_warnings],
        "from": implemented.format,
        "normalization": {"format": implemented.format, "assumed": list(implemented.assumed)},
    }


def _summary(result: dict[str, Any]) -> str:
    content = result["content"]
    text = content if isinstance(content, str) else json.dumps(content, indent=2, ensure_ascii=False)
    lines = [f"Converted {result['from']} to {result['format']} ({len(result['warnings'])} warning(s))."]
    lines.extend(f"- {w['code']} at {w['path'] or '(root)'}: {w['message']}" for w in result["warnings"][:20])
    if len(result["warnings"]) > 20:
        lines.append(f"... and {len(result['warnings']) - 20} more")
    lines.append(text)
    return "\n".join(lines)


_FROM = readable_format_argument("The source format (detected when absent).")
_TO = writable_format_argument("The target format.")

register(
    ToolSpec(
        name="convert_machine",
        title="Convert a state machine between formats",
        description=(
            "Use to turn a machine into another format (XState JSON/YAML or TS, SCXML, Mermaid, D2, XGraph). "
            "What the target cannot express is listed in `warnings`, never dropped silently."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "machine": machine_argument(),
                "from": listed_format_argument(_FROM),
                "to": listed_format_argument(_TO),
            },
            "required": ["machine", "to"],
            "additionalProperties": False,
        },
        output_schema={
            "type": "object",
            "properties": {
                "format": {"type": "string", "description": "The target format's canonical name."},
                "content": {"anyOf": [{"type": "string"}, {"type": "object"}],
                            "description": "Text (SCXML, D2, ...) or a JSON object (XState config, XGraph)."},
                "warnings": {"type": "array", "items": WARNING_SCHEMA},
                "from": {"type": "string", "description": "The source format, as given or detected."},
                "normalization": {
                    "type": "object",
                    "description": "What a structure-only source (XGraph without semantics, Mermaid, D2) left to defaults.",
                    "properties": {"format": {"type": "string"}, "assumed": {"type": "array", "items": WARNING_SCHEMA}},
                    "required": ["format", "assumed"],
                },
            },
            "required": ["format", "content", "warnings"],
        },
        function=_convert,
        summarize=_summary,
        argument_schemas={"from": _FROM, "to": _TO},
        explain_refusal=explain_format_refusal(readable=("from",), writable=("to",)),
    )
)
