"""The hosted resource tools: read projects and machines through the resource provider."""

from __future__ import annotations

from typing import Any

from statekit.errors import ToolError
from statekit.hosted.provider import ResourceProvider
from statekit.hosted.records import checked_machine
from statekit.tools.arguments import ID_ARGUMENT
from statekit.tools.registry import ToolAnnotations, ToolContext, ToolSpec, register

OPEN_WORLD = ToolAnnotations(open_world=True)

_PROJECT = {"type": "object", "properties": {"projectId": {"type": "string"}, "name": {"type": "string"},
                                            "currentVersionId": {"type": "string"}}, "required": ["projectId", "name"]}
_MACHINE_SUMMARY = {"type": "object", "properties": {"machineId": {"type": "string"}, "name": {"type": "string"}},
                    "required": ["machineId", "name"]}


def _provider(context: ToolContext) -> ResourceProvider:
    if context.resource_provider is None:
        raise ToolError("capability_disabled", "no resource provider is configured on this deployment")
    return context.resource_provider


def _list_projects(arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    return {"projects": _provider(context).list_projects()}


def _get_project(arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    return {"project": _provider(context).get_project(arguments["projectId"])}


def _list_project_machines(arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    return {"machines": _provider(context).list_project_machines(arguments["projectId"])}


def _read_machine(machine_id: str, context: ToolContext) -> dict[str, Any]:
    """The provider's machine, validated on read (a provider is a store statekit does not control)."""
    return checked_machine(_provider(context).get_machine(machine_id), machine_id)


def _get_machine(arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    return {"machine": _read_machine(arguments["machineId"], context)}


def _id_schema(name: str) -> dict[str, Any]:
    return {"type": "object", "properties": {name: ID_ARGUMENT}, "required": [name], "additionalProperties": False}


_NO_ARGUMENTS: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}

for spec in (
    ToolSpec(name="list_stately_projects", title="List hosted projects", description="Use to find the caller's hosted Stately projects.",
             input_schema=_NO_ARGUMENTS,
             output_schema={"type": "object", "properties": {"projects": {"type": "array", "items": _PROJECT}}, "required": ["projects"]},
             function=_list_projects, annotations=OPEN_WORLD, takes_context=True, host_side=True, error_envelope=True,
             summarize=lambda r: "\n".join(f"{p['projectId']}: {p['name']}" for p in r["projects"]) or "No projects."),
    ToolSpec(name="get_stately_project", title="Get a hosted project",
             description="Use to read a hosted project: its version id and machine ids.",
             input_schema=_id_schema("projectId"),
             output_schema={"type": "object", "properties": {"project": {**_PROJECT, "properties": {
                 **_PROJECT["properties"], "machineIds": {"type": "array", "items": {"type": "string"}}}}},  # type: ignore[dict-item]
              "required": ["project"]},
             function=_get_project, annotations=OPEN_WORLD, takes_context=True, host_side=True, error_envelope=True),
    ToolSpec(name="list_stately_project_machines", title="List a project's machines", description="Use to list the machines of a hosted project.",
             input_schema=_id_schema("projectId"),
             output_schema={"type": "object", "properties": {"machines": {"type": "array", "items": _MACHINE_SUMMARY}},
              "required": ["machines"]},
             function=_list_project_machines, annotations=OPEN_WORLD, takes_context=True, host_side=True, error_envelope=True,
             summarize=lambda r: "\n".join(f"{m['machineId']}: {m['name']}" for m in r["machines"]) or "No machines."),
    ToolSpec(name="get_stately_machine", title="Get a hosted machine", description="Use to read a hosted machine with its definition.",
             input_schema=_id_schema("machineId"),
             output_schema={"type": "object", "properties": {"machine": {"type": "object", "properties": {
                 "machineId": {"type": "string"}, "name": {"type": "string"}, "projectId": {"type": "string"},
                 "definition": {}, "graph": {}}, "required": ["machineId"]}}, "required": ["machine"]},
             function=_get_machine, annotations=OPEN_WORLD, takes_context=True, host_side=True, error_envelope=True),
):
    register(spec)


def _hosted_document(machine: dict[str, Any]) -> tuple[Any, str | None]:
    """What to draw for a hosted machine: the public graph, else an XGraph-shaped stored
    definition, else a legacy DigraphDef, else the definition as an XState config."""
    graph = machine.get("graph")
    if isinstance(graph, dict) and isinstance(graph.get("nodes"), list):
        return graph, "xgraph"
    definition = machine.get("definition")
    if isinstance(definition, dict):
        if isinstance(definition.get("nodes"), list) and isinstance(definition.get("edges"), list):
            return definition, "xgraph"
        if isinstance(definition.get("nodes"), dict) and "root" in definition:
            return definition, "digraph"
        return definition, None
    if isinstance(definition, str):
        return definition, None
    raise ToolError("upstream_error", "the hosted machine has neither a graph nor a definition to draw")


def _visualize_hosted(arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    document, _format = _hosted_document(_read_machine(arguments["machineId"], context))
    request: dict[str, Any] = {"machine": document}  # the format is detected (XGraph and DigraphDef are unmistakable)
    for key in ("direction", "parentNodeIds"):
        if key in arguments:
            request[key] = arguments[key]
    # The provider is the host's; the layout and the drawing run where every call's work runs.
    drawn: dict[str, Any] = context.compute("statekit.tools.visualize_tools.visualize", request)
    return drawn


def _register_visualize_hosted() -> None:
    from statekit.render.app import APP_URI
    from statekit.tools import visualize_tools

    register(ToolSpec(
        name="visualize_stately_machine", title="Visualize a hosted machine",
        description="Use to draw a hosted machine by id, as visualize_machine does.",
        input_schema={"type": "object", "properties": {
            "machineId": ID_ARGUMENT,
            "direction": visualize_tools.INPUT_SCHEMA["properties"]["direction"],
            "parentNodeIds": visualize_tools.INPUT_SCHEMA["properties"]["parentNodeIds"]},
         "required": ["machineId"], "additionalProperties": False},
        output_schema=visualize_tools.OUTPUT_SCHEMA, function=_visualize_hosted, annotations=OPEN_WORLD, takes_context=True, host_side=True, error_envelope=True,
        summarize=visualize_tools.summarize, content_key=visualize_tools.IMAGES_KEY,
        meta={"ui": {"resourceUri": APP_URI}},
    ))


_register_visualize_hosted()
