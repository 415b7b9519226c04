"""Valid arguments for every tool, for the tests that drive all of them.

The faces test (`tools/test_faces.py`), every tool over MCP (`server/test_every_tool.py`) and
the hostile-input suite (`tools/test_hostile_input.py`) call each registered tool with arguments
its schema accepts: a turnstile machine, an edit of it and a patch between them, its XState
source, a minimal verification report, and the ids a test host registers (workspace file
`turnstile.json`, hosted project `demo` with machine `m1`). A tool without an entry in
`GOOD_ARGUMENTS` gets its required arguments from its schema (`schema_value`), so a tool
registered later is driven too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MACHINE: dict[str, Any] = json.loads((ROOT / "examples" / "verify" / "turnstile.json").read_text())
EDITED = {**MACHINE, "states": {**MACHINE["states"], "broken": {"type": "final"}}}
SOURCE = "import { createMachine } from 'xstate';\nexport const m = createMachine(" + json.dumps(MACHINE) + ");\n"
PATCH = [{"op": "createTransition", "sourceId": "turnstile.unlocked", "targetId": "turnstile.locked",
          "eventType": "RESET"}]
REPORT = {"schemaVersion": "statekit.verification/1", "model": {"kind": "source"}, "paths": [], "results": [],
          "verdict": "inconclusive", "coverage": {"model": {}, "executed": {}}}


def good_arguments(report: dict[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """Schema-valid arguments by tool name; the report tools get `report` (from a real
    `verify` run) when given, else the minimal `REPORT`."""
    report = report or REPORT
    return {
        "validate_machine": {"machine": MACHINE},
        "convert_machine": {"machine": MACHINE, "to": "scxml"},
        "diff_machines": {"before": MACHINE, "after": EDITED, "includePatches": True},
        "apply_machine_patches": {"machine": MACHINE, "patches": PATCH},
        "review_machine_implementation": {"original": MACHINE, "edited": EDITED, "patches": PATCH},
        "generate_graph_paths": {"machine": MACHINE, "algorithm": "shortest"},
        "simulate_machine": {"machine": MACHINE, "events": ["COIN", "PUSH"]},
        "visualize_machine": {"machine": MACHINE},
        "extract_machines_from_code": {"code": SOURCE, "filename": "turnstile.ts"},
        "check_machine_properties": {"machine": MACHINE, "properties": [{"type": "deadlockFree"}]},
        "list_machines": {},
        "get_machine": {"machineId": "turnstile.json"},
        "generate_test_paths": {"report": report},
        "coverage_report": {"report": report},
        "verify": {"model": {"kind": "source", "content": MACHINE}},
        "list_stately_projects": {},
        "get_stately_project": {"projectId": "demo"},
        "list_stately_project_machines": {"projectId": "demo"},
        "get_stately_machine": {"machineId": "m1"},
        "visualize_stately_machine": {"machineId": "m1"},
        "start_machine": {"machine": MACHINE},
        "send_events": {"machineHandle": "lm_unknown", "events": ["COIN"]},
        "get_machine_snapshot": {"machineHandle": "lm_unknown"},
        "stop_machine": {"machineHandle": "lm_unknown"},
    }


def schema_value(schema: dict[str, Any]) -> Any:
    """A harmless value `schema` accepts: its const or first enum value, the first choice of a
    oneOf/anyOf, the required keys of an object, the fewest items of an array, the minimum of a
    number (at least 1), False, or "x"."""
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    for choice in ("oneOf", "anyOf"):
        if choice in schema and "type" not in schema:
            return schema_value(schema[choice][0])
    kind = schema.get("type")
    if kind == "array":
        return [schema_value(schema.get("items", {})) for _ in range(schema.get("minItems", 0))]
    if kind == "object":
        properties = schema.get("properties", {})
        return {key: schema_value(properties.get(key, {})) for key in schema.get("required", [])}
    if kind in ("integer", "number"):
        return max(1, schema.get("minimum", 1))
    if kind == "boolean":
        return False
    return "x"
