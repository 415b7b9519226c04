"""Which workflow a request belongs to.

Resolution order, first hit wins:

1. the handle argument (`state_handle_key`), minted by a creating tool and passed back by the model;
2. the transport session id (`Mcp-Session-Id`, legacy HTTP sessions only: 2026-07-28 has none);
3. the authenticated principal, when a resolver is configured (by default the SDK's access token);
4. one per-server fallback workflow, keyed by the workflow's id (or `fallback_key=`), so a
   durable store resumes it after a restart. It is used only where one client owns the
   process (stdio, in-process), or over HTTP when the server author passed
   `shared_fallback=True`; otherwise the request has no workflow (`NoWorkflowKey`), and the
   gate refuses rather than let HTTP clients share one workflow by accident.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

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

    @classmethod
    def parse(cls, store_key: str) -> WorkflowKey:
        """The key a store key names (`handle:abc` -> kind handle, value abc)."""
        kind, sep, value = store_key.partition(":")
        if not sep or kind not in ("handle", "session", "principal", "server"):
            raise ValueError(f"{store_key!r} is not a gate workflow key (kind:value)")
        return cls(kind, value)  # type: ignore[arg-type]


class NoWorkflowKey(Exception):
    """An HTTP request carried no handle, session or principal, and the shared fallback is off."""


def authenticated_principal(ctx: Any) -> str | None:
    """The subject (or client id) of the request's OAuth access token, if the server uses auth."""
    token = get_access_token()
    if token is None:
        return None
    return token.subject or token.client_id


def is_modern(ctx: Any) -> bool:
    """True on a 2026-07-28+ request (stateless, no session)."""
    return getattr(ctx, "protocol_version", None) in MODERN_PROTOCOL_VERSIONS


def is_http(ctx: Any) -> bool:
    """True when the request came over HTTP (the SDK sets `ctx.request` to the Starlette request)."""
    return getattr(ctx, "request", None) is not None


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
        shared_fallback: bool,
    ) -> None:
        self._handle_argument = handle_argument
        self._principal = principal
        self.fallback = WorkflowKey("server", fallback_id)
        self._shared_fallback = shared_fallback

    def handle_from(self, arguments: Mapping[str, Any] | None) -> str | None:
        """The handle argument of a call, if present and a non-empty string."""
        if self._handle_argument is None or not arguments:
            return None
        value = arguments.get(self._handle_argument)
        return value if isinstance(value, str) and value else None

    def resolve_without_handle(self, ctx: Any) -> WorkflowKey:
        """The key from the transport and auth only (what `tools/list` and listen streams use).

        Raises `NoWorkflowKey` for an HTTP request with nothing to key it by, unless the
        server asked for the shared fallback.
        """
        session_id = session_id_of(ctx)
        if session_id is not None:
            return WorkflowKey("session", session_id)
        if self._principal is not None:
            principal = self._principal(ctx)
            if principal:
                return WorkflowKey("principal", principal)
        if is_http(ctx) and not self._shared_fallback:
            raise NoWorkflowKey(
                "this HTTP request carries no session id, state handle or authenticated "
                "principal, so the gate cannot tell whose workflow it is. Configure one: "
                "authentication (the principal keys the workflow), stateful legacy HTTP "
                "sessions, mode='handle', or Gate(shared_fallback=True) if every client "
                "really shares one workflow."
            )
        return self.fallback
