"""The caller's own bearer credential, for the duration of one request (credential forwarding).

On an authenticated HTTP server started with `--forward-credential`, the server puts the
bearer token the caller authenticated with here while it serves that caller's request, and an
`HttpResourceProvider` that forwards credentials sends that token to the resource API instead
of the server-wide one: each caller sees exactly the projects its own account can access.

The token lives only in this context variable (copied into the worker thread that runs the
tool); it is never logged, never put in an error message and never stored.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_caller_credential: ContextVar[str | None] = ContextVar("statekit_caller_credential", default=None)


@contextmanager
def caller_credential(token: str | None) -> Iterator[None]:
    """Make `token` the current caller's credential inside the block."""
    handle = _caller_credential.set(token)
    try:
        yield
    finally:
        _caller_credential.reset(handle)


def current_caller_credential() -> str | None:
    """The current caller's bearer credential, or None (stdio, the Python API, no forwarding)."""
    return _caller_credential.get()
