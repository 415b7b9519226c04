"""Serve any `ResourceProvider` as a Stately-compatible `/api/v1` API (`statekit studio`).

Who may call it is not decided here: `statekit.server.http_app.build_studio_app` puts the MCP
endpoint's own Host/Origin and bearer-token guards in front of it.
"""

from __future__ import annotations

from typing import Any

from statekit.errors import ToolError
from statekit.hosted.provider import ResourceProvider

_STATUS = {
    "bad_request": 400, "invalid_input": 400, "input_too_large": 413, "unauthenticated": 401, "forbidden": 403,
    "not_found": 404, "conflict": 409, "payload_too_large": 413, "rate_limited": 429,
}


def create_api_app(provider: ResourceProvider) -> Any:
    """A Starlette app answering `GET /api/v1/...` (unguarded: see the module doc)."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    def error_response(error: ToolError) -> JSONResponse:
        status = _STATUS.get(error.code, 500)
        body: dict[str, Any] = {"code": error.code, "message": error.message, "retryable": status >= 500}
        return JSONResponse({"error": body}, status_code=status)

    def endpoint(read: Any) -> Any:
        async def handle(request: Request) -> JSONResponse:
            try:
                return JSONResponse(read(request.path_params))
            except ToolError as error:
                return error_response(error)

        return handle

    routes = [
        Route("/api/v1/projects", endpoint(lambda p: {"projects": provider.list_projects()})),
        Route("/api/v1/projects/{projectId}", endpoint(lambda p: {"project": provider.get_project(p["projectId"])})),
        Route("/api/v1/projects/{projectId}/machines",
              endpoint(lambda p: {"machines": provider.list_project_machines(p["projectId"])})),
        Route("/api/v1/machines/{machineId}", endpoint(lambda p: {"machine": provider.get_machine(p["machineId"])})),
    ]
    return Starlette(routes=routes)
