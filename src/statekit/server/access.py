"""Who may reach the HTTP endpoint: bearer tokens, loopback hosts, and the no-auth escape hatch."""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

logger = logging.getLogger(__name__)

TOKENS_ENV = "STATEKIT_TOKENS"
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", ""})
#: Shorter secrets are guessable; refusing them is kinder than a quiet weak deployment.
MIN_TOKEN_LENGTH = 16

AuthMode = Literal["bearer", "none"]
#: Where the bearer guard leaves the authenticated principal: the ASGI scope's `state`, which
#: the SDK's request object (and so the tool call's request context) shares.
PRINCIPAL_STATE_KEY = "statekit.principal"


def principal_of_token(token: str) -> str:
    """The stable principal id of a bearer token: a hash, never the token itself.

    The same token gives the same id in every process and after a restart, so a live machine a
    caller started stays its own on any server sharing the store; the id (kept in stores, shown
    in logs) does not give the token back.
    """
    return "token:" + hashlib.sha256(b"statekit-principal\0" + token.encode("utf-8")).hexdigest()[:32]


def request_principal(request: object) -> str | None:
    """The principal the bearer guard authenticated for this HTTP request (None: no auth, stdio)."""
    scope = getattr(request, "scope", None)
    state = scope.get("state") if isinstance(scope, dict) else None
    principal = state.get(PRINCIPAL_STATE_KEY) if isinstance(state, dict) else None
    return principal if isinstance(principal, str) else None


class AccessConfigError(ValueError):
    """The HTTP access settings are unsafe or incomplete; the message says how to fix them."""


def is_loopback(host: str) -> bool:
    """Whether `host` (a bind address or name) only accepts connections from this machine."""
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def load_tokens(
    flag_tokens: Iterable[str] = (),
    *,
    token_file: str | Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> list[str]:
    """Tokens from `--token` flags, the `STATEKIT_TOKENS` variable (comma or space separated)
    and a token file (one per line, `#` comments), in that order, without duplicates."""
    environ = os.environ if environ is None else environ
    found: list[str] = [token.strip() for token in flag_tokens]
    found += environ.get(TOKENS_ENV, "").replace(",", " ").split()
    if token_file is not None:
        for line in Path(token_file).read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                found.append(line)
    tokens = list(dict.fromkeys(token for token in found if token))
    for token in tokens:
        if (
            len(token) < MIN_TOKEN_LENGTH
            or not token.isascii()
            or not token.isprintable()
            or " " in token
        ):
            raise AccessConfigError(
                f"every bearer token must be at least {MIN_TOKEN_LENGTH} printable ASCII characters without spaces"
            )
    return tokens


@dataclass(frozen=True)
class AccessPolicy:
    """The decided HTTP access rules: tokens to require (None for no authentication)."""

    tokens: tuple[str, ...] | None

    @property
    def requires_auth(self) -> bool:
        """Whether requests must present a bearer token."""
        return self.tokens is not None


def decide_access(
    host: str, auth: AuthMode, tokens: Iterable[str], *, allow_remote_no_auth: bool
) -> AccessPolicy:
    """Bearer authentication unless `auth` is "none", which is allowed on loopback hosts only,
    or elsewhere with `allow_remote_no_auth` (logged as a warning)."""
    if auth == "bearer":
        chosen = tuple(tokens)
        if not chosen:
            raise AccessConfigError(
                "HTTP serving requires a bearer token: pass --token, set STATEKIT_TOKENS or use --token-file "
                "(or --auth none on a loopback host)"
            )
        return AccessPolicy(chosen)
    if auth != "none":
        raise AccessConfigError(f"unknown auth mode {auth!r}; use bearer or none")
    if not is_loopback(host):
        if not allow_remote_no_auth:
            raise AccessConfigError(
                f"--auth none is only allowed on a loopback host, not {host!r}; "
                "add --allow-remote-no-auth if a trusted boundary protects this server"
            )
        logger.warning(
            "serving on %s WITHOUT authentication (--allow-remote-no-auth): anyone who can reach it can call every tool",
            host,
        )
    return AccessPolicy(None)


def default_allowed_hosts(bind_host: str, extra: Iterable[str] = ()) -> frozenset[str] | None:
    """Host names the endpoint answers for: loopback names, the bound host and any extra names.

    A wildcard bind address without extra names returns None (no Host check): the names clients
    will use are unknown, and such a server needs authentication or an explicit opt-out anyway.
    """
    extra_names = {name.strip().lower().strip("[]") for name in extra if name.strip()}
    if bind_host in WILDCARD_HOSTS and not extra_names:
        return None
    names = set(LOOPBACK_NAMES) | extra_names
    if bind_host not in WILDCARD_HOSTS:
        names.add(bind_host.lower().strip("[]"))
    return frozenset(names)
