"""`extract_machines_from_code`: every XState machine in JavaScript / TypeScript, read statically.

The source is parsed with tree-sitter and never executed; no resource provider is involved.
"""

from __future__ import annotations

import json
from typing import Any

from statekit.extract import extract_machines
from statekit.tools.registry import ToolSpec, register

_ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "code": {"type": "string", "description": "syntax_error, unresolved_spread, unresolved_key, too_deep, ..."},
        "message": {"type": "string"},
        "line": {"type": "integer", "description": "1-based"},
        "column": {"type": "integer", "description": "1-based"},
    },
    "required": ["code", "message", "line", "column"],
}

_MACHINE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "The variable, property or export holding the machine; else its id."},
        "line": {"type": "integer", "description": "1-based line of the createMachine call"},
        "column": {"type": "integer", "description": "1-based column of the createMachine call"},
        "xstateVersion": {"type": "integer", "enum": [5, 6]},
        "config": {
            "type": "object",
            "description": "The machine config in statekit's JSON encoding: inline guards and actions as "
                           "{type, code}, built-ins as xstate.* objects, other functions as {$js: source}, "
                           "unresolvable names as {$ref: name}, other expressions as {$expr: source}.",
        },
        "implementations": {
            "type": "object",
            "description": "The setup({...}) guards / actions / actors / delays: name -> {code} or {$ref}; "
                           "inline invoked actors under the name XState gives them (xstate.invoke.<i>.<state id>).",
        },
    },
    "required": ["name", "line", "column", "xstateVersion", "config", "implementations"],
}


def _extract(arguments: dict[str, Any]) -> dict[str, Any]:
    version = arguments.get("xstateVersion")
    if isinstance(version, str):  # "5", "6", "v5", "v6" (the schema's spellings)
        version = int(version.lstrip("v"))
    result = extract_machines(arguments["code"], arguments.get("filename"), version)
    return {"machines": result["machines"], "errors": result["errors"]}


def _summary(result: dict[str, Any]) -> str:
    machines = result["machines"]
    lines = [f"Extracted {len(machines)} machine(s); {len(result['errors'])} error(s)."]
    for machine in machines:
        lines.append(f"- {machine['name']} (line {machine['line']}, XState v{machine['xstateVersion']})")
    for error in result["errors"][:20]:
        lines.append(f"! {error['line']}:{error['column']} {error['code']}: {error['message']}")
    lines.append(json.dumps(machines, indent=2, ensure_ascii=False))
    return "\n".join(lines)


register(
    ToolSpec(
        name="extract_machines_from_code",
        title="Extract XState machines from JavaScript or TypeScript",
        description=(
            "Use to get the machine configs out of XState source (createMachine, setup().createMachine) "
            "without running it: inline code kept as text, what cannot be followed listed in `errors` "
            "with line and column."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "code": {"type": "string", "description": "JavaScript or TypeScript source text."},
                "filename": {"type": "string", "description": "Its extension picks the grammar (.ts, .tsx, .js, .jsx)."},
                "xstateVersion": {"anyOf": [{"type": "integer", "enum": [5, 6]}, {"type": "string", "enum": ["5", "6", "v5", "v6"]}],
                                  "description": "XState major version (inferred when absent)."},
            },
            "required": ["code"],
            "additionalProperties": False,
        },
        output_schema={
            "type": "object",
            "properties": {
                "machines": {"type": "array", "items": _MACHINE_SCHEMA},
                "errors": {"type": "array", "items": _ERROR_SCHEMA},
            },
            "required": ["machines", "errors"],
        },
        function=_extract,
        summarize=_summary,
    )
)
