"""`verify`, `generate_test_paths` and `coverage_report`."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from statekit.errors import ToolError
from statekit.model import machine_to_config
from statekit.tools.arguments import ID_ARGUMENT, machine_argument
from statekit.tools.inputs import load_implemented
from statekit.tools.registry import ToolAnnotations, ToolContext, ToolSpec, register
from statekit.verify.adapter import Binding, ExecutionPolicy, VerificationRequest
from statekit.verify.report import (
    PATH_SCHEMA,
    REPORT_SCHEMA,
    REPORT_VERSION,
    check_report,
    verdict_of,
)


def _model_argument(model_arg: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """`(source or None, the report's model reference)`; the schema checked the shape."""
    if model_arg["kind"] == "source":
        return model_arg["content"], {"kind": "source"}
    return None, {"kind": "machine", "machineId": model_arg["machineId"]}


def _bindings(value: list[dict[str, Any]] | dict[str, Any] | None) -> list[Binding]:
    items = [] if value is None else value if isinstance(value, list) else [value]
    return [Binding(content=item.get("content"), name=item.get("name")) for item in items]


def _verify(arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    """The adapter and the provider are the host's; planning the paths and writing the report
    (the work that grows with the machine) run through `context.compute`, in a call worker."""
    source, model_ref = _model_argument(arguments["model"])
    bindings = _bindings(arguments.get("bindings"))
    baseline = arguments.get("baseline")
    adapter = context.verification_adapter
    if adapter is None:
        raise ToolError("verification_unavailable", "this host supplies no verification adapter (execute_verification)")
    if source is None:
        if context.resource_provider is None:
            raise ToolError("capability_disabled", "no resource provider is configured to resolve machineId")
        source = context.resource_provider.get_machine(model_ref["machineId"]).get("definition")
    paths, model_coverage, truncated = context.compute("statekit.tools.verify_tools.plan_verification", source)
    policy = ExecutionPolicy()
    # The adapter drives the host's implementation with the machine (read here: bounded by the input limit).
    request = VerificationRequest(machine=load_implemented(source), model_ref=model_ref, paths=paths,
                                  bindings=bindings, baseline=baseline, policy=policy)
    results = [result.to_json() for result in adapter(request)]
    known = {path["id"] for path in paths}
    if {r["pathId"] for r in results} - known:
        raise ToolError("internal_error", "the verification adapter reported paths that were not planned")
    report: dict[str, Any] = context.compute(
        "statekit.tools.verify_tools.verification_report", source, model_ref, paths, model_coverage, truncated,
        results, baseline, str(getattr(adapter, "name", type(adapter).__name__)), policy.to_json())
    return {"report": report}


def plan_verification(source: Any) -> tuple[list[dict[str, Any]], dict[str, Any], bool]:
    """`(paths, model coverage, truncated)` for the machine `source` (runs in a call worker)."""
    from statekit.verify.planner import plan_paths  # the path search loads on first use

    return plan_paths(load_implemented(source))


def verification_report(source: Any, model_ref: dict[str, Any], paths: list[dict[str, Any]],
                        model_coverage: dict[str, Any], truncated: bool, results: list[dict[str, Any]],
                        baseline: dict[str, Any] | None, adapter: str, policy: dict[str, Any]) -> dict[str, Any]:
    """The versioned report of a verification run (runs in a call worker)."""
    from statekit.analysis.simulate import build_simulation_machine
    from statekit.engine.api import initial_transition
    from statekit.verify.planner import executed_coverage

    implemented = load_implemented(source)
    model = implemented.model
    machine, _ = build_simulation_machine(implemented, None)
    initial, _ = initial_transition(machine)
    canonical = json.dumps(machine_to_config(model), sort_keys=True, default=str)
    report: dict[str, Any] = {
        "schemaVersion": REPORT_VERSION,
        "model": {**model_ref, "machine": model.id, "sha256": hashlib.sha256(canonical.encode()).hexdigest()},
        "adapter": adapter,
        "policy": policy,
        "paths": paths,
        "pathsTruncated": truncated,
        "results": results,
        "coverage": {"model": model_coverage,
                     "executed": executed_coverage(model, paths, results, {n.id for n in initial.nodes})},
        "verdict": verdict_of(results),
    }
    if baseline is not None:
        report["baseline"] = _compare(baseline, report)
    return report


def _compare(baseline: dict[str, Any], report: dict[str, Any]) -> dict[str, Any]:
    if "results" not in baseline:
        return {"reference": baseline}
    check_report(baseline)
    before = {r["pathId"]: r["status"] for r in baseline["results"]}
    after = {r["pathId"]: r["status"] for r in report["results"]}
    return {
        "verdict": baseline["verdict"],
        "regressions": sorted(p for p, s in after.items() if s != "passed" and before.get(p) == "passed"),
        "fixed": sorted(p for p, s in after.items() if s == "passed" and before.get(p) not in (None, "passed")),
    }


def _generate_test_paths(arguments: dict[str, Any]) -> dict[str, Any]:
    report = check_report(arguments.get("report"), need_paths=True)
    return {"paths": list(report["paths"]), "count": len(report["paths"])}


def _coverage_report(arguments: dict[str, Any]) -> dict[str, Any]:
    report = check_report(arguments.get("report"))
    results = report["results"]
    counts = {status: sum(1 for r in results if r.get("status") == status) for status in ("passed", "failed", "error", "skipped")}
    return {"coverage": report["coverage"], "verdict": report["verdict"], "results": counts}


MODEL_ARGUMENT: dict[str, Any] = {
    "type": "object",
    "description": '{"kind": "source", "content": <machine>} or {"kind": "machine", "machineId": <hosted id>}.',
    "properties": {"kind": {"enum": ["source", "machine"]}, "content": machine_argument(),
                   "machineId": ID_ARGUMENT},
    "required": ["kind"],
    "oneOf": [
        {"properties": {"kind": {"const": "source"}}, "required": ["content"]},
        {"properties": {"kind": {"const": "machine"}}, "required": ["machineId"]},
    ],
}
#: `{content, name?}`, or `{name}` of a host-registered driver.
BINDING: dict[str, Any] = {
    "type": "object",
    "properties": {"content": {"type": "string"}, "name": {"type": "string"}},
    "anyOf": [{"required": ["content"]}, {"required": ["name"]}],
}

#: The coverage a report records, as recorded: `{model, executed}` ratios in reports statekit
#: writes (REPORT_SCHEMA), whatever object a legacy report carried otherwise.
_RECORDED_COVERAGE: dict[str, Any] = {
    "anyOf": [REPORT_SCHEMA["properties"]["coverage"], {"type": "object"}],
    "description": "Model and executed coverage ({states, transitions} ratios) as the report records it.",
}

_REPORT_ARG = {"type": "object", "properties": {"report": {"type": "object"}}, "required": ["report"],
               "additionalProperties": False}

register(ToolSpec(
    name="verify", title="Verify an implementation against its machine",
    description="Use to test an implementation against its machine: runs test paths covering every reachable "
    "transition through the host's adapter, which drives the system under test; returns a report with "
    "coverage and a verdict.",
    input_schema={"type": "object", "properties": {
        "model": MODEL_ARGUMENT,
        "bindings": {"anyOf": [{"type": "array", "items": {"$ref": "#/$defs/binding"}}, {"$ref": "#/$defs/binding"}]},
        "baseline": {"type": "object", "description": "A previous report, or a reference object."}},
     "required": ["model"], "additionalProperties": False, "$defs": {"binding": BINDING}},
    output_schema={"type": "object", "properties": {"report": REPORT_SCHEMA}, "required": ["report"]},
    function=_verify, takes_context=True, host_side=True,
    # It runs the host's system under test: statekit cannot vouch that a run changes nothing.
    annotations=ToolAnnotations(read_only=False, destructive=True, idempotent=False, open_world=True),
    summarize=lambda r: (f"Verdict: {r['report']['verdict']}; {len(r['report']['results'])} path(s); model transitions "
                         f"{r['report']['coverage']['model']['transitions']['percent']}%, executed "
                         f"{r['report']['coverage']['executed']['transitions']['percent']}%"),
))
register(ToolSpec(
    name="generate_test_paths", title="Test paths recorded in a report",
    description="Use to get the test paths a verify report recorded (runs nothing).",
    input_schema=_REPORT_ARG,
    output_schema={"type": "object", "properties": {"paths": {"type": "array", "items": PATH_SCHEMA}, "count": {"type": "integer"}},
     "required": ["paths", "count"]},
    function=_generate_test_paths,
))
register(ToolSpec(
    name="coverage_report", title="Coverage and verdict of a report",
    description="Use to get a verify report's coverage and verdict (runs nothing).",
    input_schema=_REPORT_ARG,
    output_schema={"type": "object", "properties": {"coverage": _RECORDED_COVERAGE, "verdict": {"type": "string"},
                                      "results": {"type": "object"}}, "required": ["coverage", "verdict", "results"]},
    function=_coverage_report,
))
