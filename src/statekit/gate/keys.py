"""Which workflow a request belongs to.

Resolution order, first hit wins:

1. the handle argument (`state_handle_key`), minted by a creating tool and passed back by the model;
2. the transport session id (`Mcp-Session-Id`, legacy HTTP sessions only: 2026-07-28 has none);
3. the authenticated principal, when a resolver is configured (by default the SDK's access token);
4. one per-server fallback workflow, shared by every client without 1-3, with a warning logged once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

logger = logging.getLogger("statekit.gate")

KeyKind = Literal["handle", "session", "principal", "server"]
PrincipalResolver = Callable[[Any], str | None]


@dataclass(frozen=True)
class WorkflowKey:
    """Where one workflow's state lives: `store_key` in the store, and how it was found."""

    kind: KeyKind
    value: str

    @property
    def store_key(self) -> str:
        """The key used in the state store (and for the in-process lock)."""
        return f"{self.kind}:{self.value}"


def authenticated_principal(ctx: Any) -> str | None:
    """The subject (or client id) of the request's OAuth access token, if the server uses auth."""
    token = get_access_token()
    if token is None:
        return None
    return token.subject or token.client_id


def is_modern(ctx: Any) -> bool:
    """True on a 2026-07-28+ request (stateless, no session)."""
    return getattr(ctx, "protocol_version", None) in MODERN_PROTOCOL_VERSIONS


def session_id_of(ctx: Any) -> str | None:
    """The legacy `Mcp-Session-Id` of the request, if it came over a stateful HTTP session."""
    if is_modern(ctx):
        # 2026-07-28 removed sessions; a stray header must not key state.
        return None
    headers = getattr(getattr(ctx, "request", None), "headers", None)
    if headers is None:
        return None
    value = headers.get("mcp-session-id")
    return str(value) if value else None


class KeyResolver:
    """Resolves requests to workflow keys (see the module docstring for the order)."""

    def __init__(
        self,
        *,
        handle_argument: str | None,
        principal: PrincipalResolver | None,
        fallback_id: str,
    ) -> None:
        self._handle_argument = handle_argument
        self._principal = principal
        self._fallback = WorkflowKey("server", fallback_id)
        self._warned = False

    def handle_from(self, arguments: Mapping[str, Any] | None) -> str | None:
        """The handle argument of a call, if present and a non-empty string."""
        if self._handle_argument is None or not arguments:
            return None
        value = arguments.get(self._handle_argument)
        return value if isinstance(value, str) and value else None

    def resolve(self, ctx: Any, arguments: Mapping[str, Any] | None = None) -> WorkflowKey:
        """The workflow key of this request."""
        handle = self.handle_from(arguments)
        if handle is not None:
            return WorkflowKey("handle", handle)
        return self.resolve_without_handle(ctx)

    def resolve_without_handle(self, ctx: Any) -> WorkflowKey:
        """The key from the transport and auth only (what `tools/list` and listen streams use)."""
        session_id = session_id_of(ctx)
        if session_id is not None:
            return WorkflowKey("session", session_id)
        if self._principal is not None:
            principal = self._principal(ctx)
            if principal:
                return WorkflowKey("principal", principal)
        if not self._warned:
            self._warned = True
            logger.warning(
                "statekit.gate: a request carried no state handle, session id or principal; "
                "it uses this server's single fallback workflow, shared by every such client"
            )
        return self._fallback
