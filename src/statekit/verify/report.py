"""The versioned verification report: its schema, checks and summaries."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from statekit.errors import ToolError

REPORT_VERSION = "statekit.verification/1"

_RATIO: dict[str, Any] = {
    "type": "object",
    "properties": {"covered": {"type": "integer"}, "total": {"type": "integer"}, "percent": {"type": "number"}},
    "required": ["covered", "total", "percent"],
}
_COVERAGE: dict[str, Any] = {
    "type": "object",
    "properties": {"states": _RATIO, "transitions": _RATIO},
    "required": ["states", "transitions"],
}
STEP_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"event": {"type": "object"}, "state": {}, "transitionIds": {"type": "array", "items": {"type": "string"}}},
    "required": ["event", "state"],
}
PATH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"id": {"type": "string"}, "description": {"type": "string"},
                   "steps": {"type": "array", "items": STEP_SCHEMA}},
    "required": ["id", "steps"],
}
RESULT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pathId": {"type": "string"},
        "status": {"type": "string", "enum": ["passed", "failed", "error", "skipped"]},
        "failedStep": {"type": ["integer", "null"]},
        "message": {"type": ["string", "null"]},
        "durationMs": {"type": "number"},
    },
    "required": ["pathId", "status"],
}
VERDICTS = ("passed", "failed", "inconclusive")
REPORT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "schemaVersion": {"type": "string", "const": REPORT_VERSION},
        "model": {"type": "object", "properties": {"kind": {"type": "string"}, "machineId": {"type": "string"},
                                                   "machine": {"type": "string"}, "sha256": {"type": "string"}}},
        "adapter": {"type": "string"},
        "policy": {"type": "object", "properties": {"ai": {"type": "boolean"}, "network": {"type": "boolean"}}},
        "paths": {"type": "array", "items": PATH_SCHEMA},
        "results": {"type": "array", "items": RESULT_SCHEMA},
        "coverage": {"type": "object", "properties": {"model": _COVERAGE, "executed": _COVERAGE},
                     "required": ["model", "executed"]},
        "verdict": {"type": "string", "enum": list(VERDICTS)},
        "baseline": {"type": "object"},
    },
    "required": ["schemaVersion", "model", "results", "coverage", "verdict"],
}


def ratio(covered: int, total: int) -> dict[str, Any]:
    return {"covered": covered, "total": total, "percent": round(100.0 * covered / total, 2) if total else 100.0}


def check_report(report: Any, *, need_paths: bool = False) -> Mapping[str, Any]:
    """The report, or `invalid_input` (or `verification_paths_unavailable`) explaining why not."""
    if not isinstance(report, Mapping):
        raise ToolError("invalid_input", "`report` must be a verification report object")
    version = report.get("schemaVersion")
    if version is not None and version != REPORT_VERSION:
        raise ToolError("invalid_input", f"unsupported report version {version!r}; this server reads {REPORT_VERSION}")
    for key, kind in (("results", list), ("coverage", Mapping), ("verdict", str)):
        if not isinstance(report.get(key), kind):
            raise ToolError("invalid_input", f"the report has no valid `{key}`")
    if report["verdict"] not in VERDICTS:
        raise ToolError("invalid_input", f"verdict must be one of {', '.join(VERDICTS)}")
    if need_paths and not isinstance(report.get("paths"), list):
        raise ToolError("verification_paths_unavailable",
                        "this report records no paths (a legacy report); run verify again to record them")
    return report


def verdict_of(results: Sequence[Mapping[str, Any]]) -> str:
    """Failed when any path failed or errored; passed when every path passed; else inconclusive."""
    statuses = [r.get("status") for r in results]
    if any(s in ("failed", "error") for s in statuses):
        return "failed"
    if statuses and all(s == "passed" for s in statuses):
        return "passed"
    return "inconclusive"
