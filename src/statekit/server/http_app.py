"""Streamable HTTP serving: the SDK's endpoint behind statekit's guards, run by uvicorn.

Requests are stateless and answered as plain JSON: the catalog is static and no tool talks
back to the client mid-call, so there is no session to keep (2025 clients still `initialize`
first; 2026-07-28 clients send self-contained requests with `Mcp-Method`/`Mcp-Name` headers,
which the SDK checks).
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterable
from typing import Any

from mcp.server.lowlevel import Server
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp

from statekit.server.access import AccessPolicy
from statekit.server.http_guards import (
    BearerAuthGuard,
    BodyLimitGuard,
    CallerCredentialForwarding,
    OriginGuard,
)
from statekit.server.http_limits import HttpLimits, uvicorn_config
from statekit.server.jsonrpc_limits import BASE_MAX_MESSAGE_BYTES, default_max_message_bytes

logger = logging.getLogger(__name__)

MCP_PATH = "/mcp"
#: The HTTP body cap is the transports' shared message cap (`jsonrpc_limits`; stdio's line cap).
BASE_MAX_BODY_BYTES = BASE_MAX_MESSAGE_BYTES
default_max_body_bytes = default_max_message_bytes


def build_http_app(
    server: Server[Any],
    *,
    access: AccessPolicy,
    allowed_hosts: Iterable[str] | None,
    allowed_origins: Iterable[str] = (),
    max_body_bytes: int = BASE_MAX_BODY_BYTES,
    path: str = MCP_PATH,
    body_timeout: float | None = HttpLimits.body_timeout,
    forward_credential: bool = False,
) -> ASGIApp:
    """The ASGI app: Host/Origin check, then bearer auth (`admission`), then the body cap, then
    the SDK endpoint: the body is read only for a request that was let in.

    With `forward_credential` (which needs bearer authentication), the caller's accepted bearer
    token is the credential the hosted resource tools send to the resource provider.
    """
    if forward_credential and access.tokens is None:
        raise ValueError("forwarding the caller's credential needs bearer authentication (--auth bearer)")
    endpoint = server.streamable_http_app(
        streamable_http_path=path,
        stateless_http=True,
        json_response=True,
        max_request_body_size=max_body_bytes,
        # The OriginGuard below is the single place Host and Origin are decided.
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    app: ASGIApp = BodyLimitGuard(endpoint, max_body_bytes=max_body_bytes, body_timeout=body_timeout)
    if forward_credential:
        app = CallerCredentialForwarding(app)
    return admission(app, access=access, allowed_hosts=allowed_hosts, allowed_origins=allowed_origins)


def admission(
    app: ASGIApp,
    *,
    access: AccessPolicy,
    allowed_hosts: Iterable[str] | None,
    allowed_origins: Iterable[str] = (),
) -> ASGIApp:
    """Who gets in, decided on the request's headers alone, in front of every HTTP app statekit
    serves (the MCP endpoint, `statekit studio`): Host and Origin first (DNS rebinding), then the
    bearer token when `access` has tokens. A refused request's body is never read (and its
    connection is closed with the answer: `http_limits`)."""
    if access.tokens is not None:
        app = BearerAuthGuard(app, tokens=access.tokens)
    return OriginGuard(app, allowed_hosts=allowed_hosts, allowed_origins=allowed_origins)


def build_studio_app(
    provider: Any,
    *,
    access: AccessPolicy,
    allowed_hosts: Iterable[str] | None,
    allowed_origins: Iterable[str] = (),
) -> ASGIApp:
    """`statekit studio`: the Stately-compatible `/api/v1` API of `provider` (a `ResourceProvider`)
    behind the MCP endpoint's own admission (`admission`)."""
    from statekit.hosted.api import create_api_app

    return admission(create_api_app(provider), access=access, allowed_hosts=allowed_hosts,
                     allowed_origins=allowed_origins)


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on `host:port` (port 0 picks a free port)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if family == socket.AF_INET6 and host in ("::", ""):
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    sock.bind(address)
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def endpoint_url(sock: socket.socket, path: str = MCP_PATH) -> str:
    """The URL clients use for the endpoint behind `sock`."""
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{path}"


async def serve_http(app: ASGIApp, sock: socket.socket, limits: HttpLimits | None = None) -> None:
    """Run `app` on `sock` with uvicorn, under `limits` (timeouts, connection cap), until interrupted."""
    import uvicorn

    await uvicorn.Server(uvicorn_config(app, limits or HttpLimits())).serve(sockets=[sock])
