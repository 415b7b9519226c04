"""`list_machines` and `get_machine`: machines in the local workspace (no network, no account)."""

from __future__ import annotations

from typing import Any

from statekit.formats import write_format
from statekit.tools.registry import ToolContext, ToolSpec, register
from statekit.workspace.scan import Skipped, Workspace

_SUMMARY = {"type": "object", "properties": {
    "machineId": {"type": "string"}, "name": {"type": "string"}, "file": {"type": "string"},
    "format": {"type": "string"}, "line": {"type": "integer"}}, "required": ["machineId", "name", "file", "format"]}


def _list(arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    workspace = Workspace(context.workspace_root)
    directory = arguments.get("directory")
    skipped = Skipped()
    machines = [machine.summary() for machine, _model in workspace.machines(skipped)]
    listed = "."
    if directory is not None:
        listed = workspace.resolve_inside(directory).relative_to(workspace.root).as_posix()
        prefix = listed.rstrip("/") + "/"
        machines = [m for m in machines if prefix == "./" or m["file"].startswith(prefix)]
        skipped.entries = [s for s in skipped.entries if prefix == "./" or s["file"].startswith(prefix)]
    # `root` is the listed folder relative to the workspace root: never the server's own path.
    result: dict[str, Any] = {"root": listed, "machines": machines}
    if skipped.entries:
        result["skipped"] = skipped.entries
    return result


def _get(arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    machine, model = Workspace(context.workspace_root).get(arguments["machineId"])
    _name, config, _warnings = write_format(model, "xstate")  # a model read from files holds only data
    return {"machine": {**machine.summary(), "config": config}}


register(ToolSpec(
    name="list_machines", title="List machines in the workspace",
    description="Use to find the machines in the local workspace (XState JSON/YAML and source, SCXML, Mermaid, D2; "
    "git-ignored files skipped), with the machineId get_machine takes.",
    input_schema={"type": "object", "properties": {"directory": {"type": "string", "description": "Only below this folder."}},
     "additionalProperties": False},
    output_schema={"type": "object", "properties": {
        "root": {"type": "string", "description": "The listed folder, relative to the workspace root."},
        "machines": {"type": "array", "items": _SUMMARY},
        "skipped": {"type": "array", "items": {"type": "object", "properties": {
            "file": {"type": "string"}, "code": {"type": "string"}, "message": {"type": "string"}},
            "required": ["file", "code", "message"]}}},
     "required": ["root", "machines"]},
    function=_list, takes_context=True,
    summarize=lambda r: "\n".join(f"{m['machineId']} ({m['format']}): {m['name']}" for m in r["machines"])
    or "No machines found.",
))
register(ToolSpec(
    name="get_machine", title="Get a workspace machine",
    description="Use to read one workspace machine, as an XState config, by the machineId list_machines gives.",
    input_schema={"type": "object", "properties": {"machineId": {"type": "string", "minLength": 1,
                                                  "description": "As list_machines gives it."}},
     "required": ["machineId"],
     "additionalProperties": False},
    output_schema={"type": "object", "properties": {"machine": {"type": "object", "properties": {
        **_SUMMARY["properties"], "config": {"type": "object"}}, "required": ["machineId", "config"]}},  # type: ignore[dict-item]
     "required": ["machine"]},
    function=_get, takes_context=True,
))
