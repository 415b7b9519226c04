"""ASGI guards in front of the MCP endpoint: Host/Origin (DNS rebinding), bearer tokens, body size.

Each guard answers a refused request itself with a small JSON body in the error envelope
`{"error": {"code", "message"}}`, using the closed set of statekit error codes, and never
reads the body of a request it refuses on headers alone.
"""

from __future__ import annotations

import hmac
import json
import logging
from collections import deque
from collections.abc import Iterable
from urllib.parse import urlsplit

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from statekit.errors import ErrorCode
from statekit.hosted.credentials import caller_credential
from statekit.server.access import PRINCIPAL_STATE_KEY, principal_of_token
from statekit.server.jsonrpc_limits import check_message

logger = logging.getLogger(__name__)


async def send_error(
    send: Send,
    status: int,
    code: ErrorCode,
    message: str,
    headers: Iterable[tuple[bytes, bytes]] = (),
) -> None:
    """Answer a refusal with `status` and the JSON error envelope, and close the connection.

    Refusals are decided before the body is read: `connection: close` tells the client the
    connection ends with this answer (the server closes it: `http_limits`), instead of the
    client reusing it with the refused body still unsent.
    """
    body = json.dumps({"error": {"code": code, "message": message}}, separators=(",", ":")).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body, "more_body": False})


def _header_values(scope: Scope, name: bytes) -> list[str]:
    # Every occurrence: a repeated Host, Origin or Authorization header is never trusted.
    return [value.decode("latin-1") for key, value in scope["headers"] if key == name]


def host_name(host_header: str) -> str:
    """The host part of a `Host` header value (`[::1]:8000` -> `::1`, `Example:80` -> `example`)."""
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


_DEFAULT_PORTS = {"http": 80, "https": 443}


def host_and_port(host_header: str, scheme: str) -> tuple[str, int] | None:
    """`(name, port)` of a `Host` header value, the port defaulting to the scheme's (None: unreadable)."""
    parts = urlsplit(f"{scheme}://{host_header.strip()}")
    try:
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname:
        return None
    return parts.hostname, port if port is not None else _DEFAULT_PORTS[scheme]


class OriginGuard:
    """Refuse requests whose Host or Origin is not this server's, so a DNS rebinding page cannot
    drive a local server from a browser.

    `allowed_hosts` are host names (any port). None turns the Host check off, for a server bound
    to every interface whose public names are not known. A request without an Origin header (any
    non-browser client) passes. A browser's Origin must be listed exactly in `allowed_origins`,
    or name an allowed host *and* the port the request was sent to (the `Host` header's), so a
    page served by another local program (`http://localhost:9999`) cannot call this server.
    With the Host check off, only the listed origins are accepted.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        allowed_hosts: Iterable[str] | None,
        allowed_origins: Iterable[str] = (),
    ) -> None:
        self.app = app
        self.allowed_hosts = (
            None if allowed_hosts is None else frozenset(h.lower() for h in allowed_hosts)
        )
        self.allowed_origins = frozenset(origin.rstrip("/").lower() for origin in allowed_origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        hosts = _header_values(scope, b"host")
        if self.allowed_hosts is not None and (
            len(hosts) != 1 or host_name(hosts[0]) not in self.allowed_hosts
        ):
            await send_error(
                send, 421, "forbidden", "this server does not answer for that Host"
            )
            return
        origins = _header_values(scope, b"origin")
        if len(origins) > 1 or (origins and not self._origin_allowed(origins[0], hosts)):
            await send_error(send, 403, "forbidden", "requests from this Origin are not allowed")
            return
        await self.app(scope, receive, send)

    def _origin_allowed(self, origin: str, hosts: list[str]) -> bool:
        normalized = origin.rstrip("/").lower()
        if normalized in self.allowed_origins:
            return True
        if self.allowed_hosts is None or len(hosts) != 1:
            return False
        parts = urlsplit(normalized)
        if parts.scheme not in _DEFAULT_PORTS or not parts.hostname or parts.path or parts.query:
            return False
        try:
            origin_port = parts.port if parts.port is not None else _DEFAULT_PORTS[parts.scheme]
        except ValueError:
            return False
        target = host_and_port(hosts[0], parts.scheme)
        return (
            target is not None
            and parts.hostname in self.allowed_hosts
            and origin_port == target[1]
        )


class BearerAuthGuard:
    """Require `Authorization: Bearer <token>` with one of the configured tokens."""

    def __init__(self, app: ASGIApp, *, tokens: Iterable[str]) -> None:
        self.app = app
        chosen = tuple(tokens)
        self._tokens = tuple(token.encode() for token in chosen)
        # Computed once: the principal a request authenticates as (live machines belong to it).
        self._principals = tuple(principal_of_token(token) for token in chosen)
        if not self._tokens:
            raise ValueError("bearer authentication needs at least one token")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        authorizations = _header_values(scope, b"authorization")
        if len(authorizations) != 1:
            await send_error(
                send,
                401,
                "unauthenticated",
                "a bearer token is required",
                [(b"www-authenticate", b'Bearer realm="statekit"')],
            )
            return
        scheme, _, presented = authorizations[0].partition(" ")
        principal = self._principal(presented.strip().encode("latin-1")) if scheme.lower() == "bearer" else None
        if principal is None:
            await send_error(
                send,
                401,
                "unauthenticated",
                "the bearer token was not accepted",
                [(b"www-authenticate", b'Bearer realm="statekit", error="invalid_token"')],
            )
            return
        # A scope of its own for the rest of the request: the principal is this request's alone.
        scope = {**scope, "state": {**scope.get("state", {}), PRINCIPAL_STATE_KEY: principal}}
        await self.app(scope, receive, send)

    def _principal(self, presented: bytes) -> str | None:
        # Compare against every token, in constant time, so timing tells nothing about which matched.
        matched: str | None = None
        for token, principal in zip(self._tokens, self._principals, strict=True):
            if hmac.compare_digest(presented, token):
                matched = principal
        return matched


class CallerCredentialForwarding:
    """Make the request's bearer token the caller's credential while the request is served.

    Placed behind `BearerAuthGuard`, so only a token this server accepted is ever forwarded;
    an `HttpResourceProvider` with `forward_caller_credential` then sends it to the resource
    API (see `statekit.hosted.credentials`). The token is never logged.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        token: str | None = None
        if scope["type"] == "http":
            authorizations = _header_values(scope, b"authorization")
            if len(authorizations) == 1:
                scheme, _, presented = authorizations[0].partition(" ")
                if scheme.lower() == "bearer" and presented.strip():
                    token = presented.strip()
        with caller_credential(token):
            await self.app(scope, receive, send)


class BodyLimitGuard:
    """Read the whole request body before the endpoint sees it, and refuse bad bodies.

    - over `max_body_bytes` (declared or streamed): 413 `payload_too_large`;
    - not complete within `body_timeout` seconds (a slow-body client): 408, connection closed;
    - the client disconnects mid-body: one log line, and the incomplete request is dropped
      (never handed to the endpoint);
    - a POST body that breaks the strict JSON rules of `jsonrpc_limits` (NaN, a huge number,
      deep nesting): a JSON-RPC error response, before the SDK parses it.
    """

    def __init__(self, app: ASGIApp, *, max_body_bytes: int, body_timeout: float | None = None) -> None:
        if max_body_bytes <= 0:
            raise ValueError("max_body_bytes must be positive")
        if body_timeout is not None and body_timeout <= 0:
            raise ValueError("body_timeout must be positive")
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.body_timeout = body_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _header_values(scope, b"content-length")
        if (
            len(declared) == 1
            and declared[0].strip().isdigit()
            and int(declared[0]) > self.max_body_bytes
        ):
            await self._refuse(send)
            return
        buffered: deque[Message] = deque()
        outcome = "complete"
        size = 0
        with anyio.move_on_after(self.body_timeout) as deadline:
            while True:
                message = await receive()
                if message["type"] != "http.request":
                    outcome = "disconnected"
                    break
                buffered.append(message)
                size += len(message.get("body", b""))
                if size > self.max_body_bytes:
                    await self._refuse(send)
                    return
                if not message.get("more_body", False):
                    break
        if deadline.cancelled_caught:
            logger.warning("closed a request whose body did not arrive within %ss (%d bytes received)",
                           self.body_timeout, size)
            await send_error(send, 408, "bad_request",
                             f"the request body did not arrive within {self.body_timeout} seconds")
            return
        if outcome == "disconnected":
            client = scope.get("client") or ("?", 0)
            logger.warning("client %s:%s disconnected before its request body was complete (%d bytes received)",
                           client[0], client[1], size)
            return
        if scope.get("method") == "POST":
            rejection = check_message(b"".join(m.get("body", b"") for m in buffered))[1]
            if rejection is not None and rejection.data:  # plain parse errors stay the SDK's to answer
                await _send_json(send, 400, rejection.encoded())
                return

        await self._serve_watching_disconnect(scope, buffered, receive, send)

    async def _serve_watching_disconnect(
        self, scope: Scope, buffered: deque[Message], receive: Receive, send: Send
    ) -> None:
        """Run the endpoint; if the client goes away before the answer is sent, cancel it.

        Only this guard reads from the connection once the body is in: the endpoint gets the
        buffered body, then (if it asks again) a disconnect message when there is one. A call
        whose client left is cancelled, which cancels its budget, so the work stops.
        """
        gone = anyio.Event()
        answered = False

        async def replay() -> Message:
            if buffered:
                return buffered.popleft()
            await gone.wait()
            return {"type": "http.disconnect"}

        async def tracked_send(message: Message) -> None:
            nonlocal answered
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                answered = True

        async with anyio.create_task_group() as group:

            async def watch() -> None:
                while (await receive())["type"] != "http.disconnect":
                    pass
                gone.set()
                if not answered:
                    client = scope.get("client") or ("?", 0)
                    logger.warning("client %s:%s went away before its answer; the call is cancelled",
                                   client[0], client[1])
                    group.cancel_scope.cancel()

            group.start_soon(watch)
            await self.app(scope, replay, tracked_send)
            group.cancel_scope.cancel()

    async def _refuse(self, send: Send) -> None:
        await send_error(
            send, 413, "payload_too_large", f"the request body is over {self.max_body_bytes} bytes"
        )


async def _send_json(send: Send, status: int, body: bytes) -> None:
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body, "more_body": False})
