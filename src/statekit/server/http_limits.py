"""Connection limits for the HTTP server: nobody can hold a connection (or all of them) open.

uvicorn closes a connection that stays idle after a response (`timeout_keep_alive`), but that
timer restarts on every byte, and nothing bounds a connection that never finishes its request
headers (slowloris) or opens and stays silent. `GuardedH11Protocol` adds:

- a header deadline: from the moment a connection opens, and again after each response, the
  next request's headers must be complete within `header_timeout` seconds, or the client is
  sent 408 and the connection is closed, however slowly it trickles bytes;
- a connection cap: past `max_connections` open connections, a new one is answered 503 and
  closed at once, before anything is parsed;
- no unread body: a request answered before its body was read (a refusal decided on its
  headers: 401, 403, 421, 413) has its connection closed with the answer, so a client cannot
  hold it by trickling the body it was refused for (uvicorn would otherwise wait for the body,
  and each byte restarts its keep-alive timer).

The body deadline is `BodyLimitGuard`'s (it reads every body before the endpoint runs).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

import h11
from starlette.types import ASGIApp
from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class HttpLimits:
    """The connection limits of one HTTP server (seconds and counts; see `statekit serve --help`)."""

    #: Time for a request's headers to arrive, from connect or from the previous response.
    header_timeout: float = 10.0
    #: Time for a request's whole body to arrive once its headers did.
    body_timeout: float = 30.0
    #: Idle time after a response before a keep-alive connection is closed.
    keep_alive_timeout: float = 5.0
    #: Open connections at once; more are answered 503 and closed.
    max_connections: int = 100

    def __post_init__(self) -> None:
        for name in ("header_timeout", "body_timeout", "keep_alive_timeout"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be a positive number of seconds")
        if self.max_connections <= 0:
            raise ValueError("max_connections must be positive")


_TIMEOUT_RESPONSE = (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\nconnection: close\r\n"
                     b"content-length: %d\r\n\r\n%s")
_BUSY_RESPONSE = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nconnection: close\r\n"
                  b"retry-after: 1\r\ncontent-length: %d\r\n\r\n%s")


def _error_body(code: str, message: str) -> bytes:
    import json

    return json.dumps({"error": {"code": code, "message": message}}, separators=(",", ":")).encode()


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a header deadline and a connection cap (see the module doc)."""

    limits: HttpLimits = HttpLimits()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.limits.max_connections:
            logger.warning("refused a connection: %d open, the limit is %d (--max-connections)",
                           len(self.connections) - 1, self.limits.max_connections)
            body = _error_body("rate_limited", "too many open connections; retry shortly")
            transport.write(_BUSY_RESPONSE % (len(body), body))
            transport.close()
            return
        self._arm_header_deadline()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._disarm_header_deadline()  # the headers are in; the body has its own deadline

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.transport.is_closing():
            return
        if self.conn.their_state is h11.SEND_BODY:  # answered on its headers; the body is unread
            self.transport.close()
            return
        self._arm_header_deadline()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_header_deadline()
        super().connection_lost(exc)

    def _arm_header_deadline(self) -> None:
        self._disarm_header_deadline()
        self._header_deadline = self.loop.call_later(self.limits.header_timeout, self._on_header_timeout)

    def _disarm_header_deadline(self) -> None:
        if self._header_deadline is not None:
            self._header_deadline.cancel()
            self._header_deadline = None

    def _on_header_timeout(self) -> None:
        self._header_deadline = None
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return
        if self.conn.our_state is h11.IDLE:  # nothing sent on this request yet: say why
            body = _error_body("bad_request", f"no complete request headers within {self.limits.header_timeout} seconds")
            self.transport.write(_TIMEOUT_RESPONSE % (len(body), body))
        self.transport.close()


def guarded_protocol(limits: HttpLimits) -> type[GuardedH11Protocol]:
    """A protocol class bound to `limits` (uvicorn instantiates the class per connection)."""
    return type("GuardedH11Protocol", (GuardedH11Protocol,), {"limits": limits})


def uvicorn_config(app: ASGIApp, limits: HttpLimits, **overrides: Any) -> Config:
    """The uvicorn configuration statekit serves with: its protocol, its timeouts, no access log."""
    options: dict[str, Any] = {"log_level": "warning", "lifespan": "on", "access_log": False,
                               "http": guarded_protocol(limits), "timeout_keep_alive": limits.keep_alive_timeout,
                               "ws": "none"}
    options.update(overrides)
    return Config(app, **options)
