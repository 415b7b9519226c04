"""Hosted resource tools end to end: embedded registry, `/api/v1` over real HTTP, error mapping."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from statekit import tools
from statekit.errors import ERROR_CODES, ToolError
from statekit.hosted.embedded import EmbeddedRegistry
from statekit.hosted.http_provider import HttpResourceProvider
from statekit.server.access import AccessPolicy, default_allowed_hosts
from statekit.server.http_app import build_studio_app
from statekit.tools.registry import ToolContext

from .conftest import serve

PLAYER = {"id": "player", "initial": "paused", "states": {"paused": {"on": {"PLAY": "playing"}}, "playing": {}}}
TOKEN = "test-token-0123456789abcdef"


@pytest.fixture
def registry(tmp_path: Path) -> EmbeddedRegistry:
    registry = EmbeddedRegistry(tmp_path / "registry.sqlite")
    project = registry.create_project("Checkout", project_id="proj-checkout")
    registry.add_machine(project, "player", PLAYER, machine_id="mach-player")
    registry.add_machine(project, "door", {"initial": "closed", "states": {"closed": {}}}, machine_id="mach-door")
    return registry


def call(name: str, arguments: dict[str, Any], provider: Any) -> dict[str, Any]:
    return tools.call(name, arguments, context=ToolContext(resource_provider=provider))


def test_embedded_registry_through_the_tools(registry: EmbeddedRegistry) -> None:
    projects = call("list_stately_projects", {}, registry)["projects"]
    assert [p["projectId"] for p in projects] == ["proj-checkout"]
    project = call("get_stately_project", {"projectId": "proj-checkout"}, registry)["project"]
    assert project["machineIds"] == ["mach-player", "mach-door"]
    assert project["currentVersionId"].startswith("proj-checkout@")
    machines = call("list_stately_project_machines", {"projectId": "proj-checkout"}, registry)["machines"]
    assert [(m["machineId"], m["name"]) for m in machines] == [("mach-player", "player"), ("mach-door", "door")]
    machine = call("get_stately_machine", {"machineId": "mach-player"}, registry)["machine"]
    assert machine["definition"] == PLAYER


def test_reads_never_create_the_registry_file(tmp_path: Path) -> None:
    registry = EmbeddedRegistry(tmp_path / "absent" / "registry.sqlite")
    assert call("list_stately_projects", {}, registry) == {"projects": []}
    with pytest.raises(ToolError) as caught:
        call("get_stately_machine", {"machineId": "nope"}, registry)
    assert caught.value.code == "not_found"
    assert not (tmp_path / "absent").exists()


def test_without_a_provider_the_capability_is_disabled() -> None:
    for name, arguments in (("list_stately_projects", {}), ("get_stately_machine", {"machineId": "m1"})):
        with pytest.raises(ToolError) as caught:
            call(name, arguments, None)
        assert caught.value.code == "capability_disabled"


@pytest.mark.parametrize("bad", ["", "../etc/passwd", "a/b", "x" * 201, "id?x=1", 42, None])
def test_ids_are_checked_before_any_call(registry: EmbeddedRegistry, bad: Any) -> None:
    with pytest.raises(ToolError) as caught:
        call("get_stately_project", {"projectId": bad}, registry)
    assert caught.value.code == "invalid_input"


def test_http_provider_against_the_studio_api(registry: EmbeddedRegistry) -> None:
    app = build_studio_app(registry, access=AccessPolicy((TOKEN,)), allowed_hosts=default_allowed_hosts("127.0.0.1"))
    with serve(app) as base:
        provider = HttpResourceProvider(f"{base}/api", TOKEN, timeout_ms=5000)
        assert [p["projectId"] for p in call("list_stately_projects", {}, provider)["projects"]] == ["proj-checkout"]
        machine = call("get_stately_machine", {"machineId": "mach-door"}, provider)["machine"]
        assert machine["definition"]["initial"] == "closed"
        with pytest.raises(ToolError) as caught:
            call("get_stately_project", {"projectId": "proj-missing"}, provider)
        assert caught.value.code == "not_found"
        wrong = HttpResourceProvider(f"{base}/api", "wrong-token-0123456789", timeout_ms=5000)
        with pytest.raises(ToolError) as caught:
            call("list_stately_projects", {}, wrong)
        assert caught.value.code == "unauthenticated"


def test_no_credential_is_unauthenticated_before_any_request() -> None:
    provider = HttpResourceProvider("http://127.0.0.1:9/api", None)
    with pytest.raises(ToolError) as caught:
        call("list_stately_projects", {}, provider)
    assert caught.value.code == "unauthenticated"


def _upstream(status: int, body: Any, headers: dict[str, str] | None = None, delay: float = 0.0) -> Starlette:
    async def handle(request: Request) -> Response:
        if delay:
            await asyncio.sleep(delay)
        return JSONResponse(body, status_code=status, headers=headers)

    return Starlette(routes=[Route("/api/v1/projects", handle)])


@pytest.mark.parametrize(
    ("status", "body", "headers", "code", "message_part"),
    [
        (429, {"error": {"code": "rate_limited", "message": "Too many requests."}}, {"Retry-After": "30"},
         "rate_limited", "Too many requests. Retry after 30 seconds."),
        (418, {"error": {"code": "teapot", "message": "no"}}, None, "bad_request", "no"),
        (404, {"error": {"code": "made_up", "message": "gone"}}, None, "not_found", "gone"),
        (409, {"error": {"code": "conflict", "message": "busy", "retryable": True}}, None, "conflict", "busy"),
        (413, {}, None, "payload_too_large", "413"),
        (403, {"error": {"message": "nope"}}, None, "forbidden", "nope"),
        (400, {"error": {"code": "invalid_input", "message": "bad id", "issues": [{"path": "x"}]}}, None,
         "invalid_input", "bad id"),
        (500, {"error": {"code": "weird", "message": "boom"}}, None, "upstream_error", "boom"),
        (503, "not an envelope", None, "upstream_error", "503"),
    ],
)
def test_upstream_errors_map_onto_the_closed_set(status: int, body: Any, headers: dict[str, str] | None,
                                                  code: str, message_part: str) -> None:
    with serve(_upstream(status, body, headers)) as base:
        provider = HttpResourceProvider(f"{base}/api", TOKEN, timeout_ms=5000)
        with pytest.raises(ToolError) as caught:
            call("list_stately_projects", {}, provider)
    assert caught.value.code == code
    assert caught.value.code in ERROR_CODES
    assert message_part in caught.value.message


def test_slow_upstream_is_a_timeout() -> None:
    with serve(_upstream(200, {"projects": []}, delay=2.0)) as base:
        provider = HttpResourceProvider(f"{base}/api", TOKEN, timeout_ms=200)
        with pytest.raises(ToolError) as caught:
            call("list_stately_projects", {}, provider)
    assert caught.value.code == "upstream_timeout"


def test_unreachable_upstream_is_an_upstream_error() -> None:
    provider = HttpResourceProvider("http://127.0.0.1:9/api", TOKEN, timeout_ms=2000)
    with pytest.raises(ToolError) as caught:
        call("list_stately_projects", {}, provider)
    assert caught.value.code == "upstream_error"


def test_hosted_tools_are_open_world_and_read_only() -> None:
    for name in ("list_stately_projects", "get_stately_project", "list_stately_project_machines", "get_stately_machine"):
        spec = tools.get(name)
        assert spec.annotations.open_world and spec.annotations.read_only and not spec.annotations.destructive
    assert not any(n.startswith(("create_stately", "update_stately", "delete_stately")) for n in tools.tools())


def test_visualize_stately_machine_renders_graph_definition_or_digraph(registry: EmbeddedRegistry) -> None:
    from statekit.formats import write_format
    from statekit.tools.inputs import load_model

    nested = {"id": "media", "initial": "off", "states": {"off": {"on": {"ON": "on"}},
                                                          "on": {"initial": "a", "states": {"a": {}, "b": {}}}}}
    _name, xgraph, _warnings = write_format(load_model(nested), "xgraph")
    registry.add_machine("proj-checkout", "as-graph", nested, machine_id="mach-graph", graph=xgraph)  # type: ignore[arg-type]
    registry.add_machine("proj-checkout", "as-xgraph-definition", xgraph, machine_id="mach-xdef")  # type: ignore[arg-type]
    for machine_id, parents in (("mach-graph", 2), ("mach-xdef", 2), ("mach-player", 1)):
        result = call("visualize_stately_machine", {"machineId": machine_id}, registry)
        assert result["schemaVersion"] == "2.0"
        assert result["interactive"]["status"] == "ready"
        assert result["pngFallback"]["status"] == "ready"
        assert len(result["pngFallback"]["images"]) == parents
        assert len(result["images"]) == parents if "images" in result else True
    with pytest.raises(ToolError) as caught:
        call("visualize_stately_machine", {"machineId": "mach-none"}, registry)
    assert caught.value.code == "not_found"
