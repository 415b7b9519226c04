"""Errors the gate raises at registration, and the codes it puts in refused tool results."""

from __future__ import annotations

from typing import Final, Literal

from statekit.errors import StatekitError

#: Codes of the `isError` results the gate itself produces (the `code` field of their payload).
GateResultCode = Literal["FORBIDDEN", "CONFLICT", "NOT_FOUND"]

FORBIDDEN: Final = "FORBIDDEN"
CONFLICT: Final = "CONFLICT"
NOT_FOUND: Final = "NOT_FOUND"


class GateConfigError(StatekitError):
    """A binding or the gate's setup is wrong; raised at registration so a server never starts open."""
