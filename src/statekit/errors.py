"""The closed set of tool error codes, and the exception every tool raises."""

from __future__ import annotations

from typing import Any, Final, Literal

ErrorCode = Literal[
    "bad_request",
    "unauthenticated",
    "forbidden",
    "not_found",
    "conflict",
    "payload_too_large",
    "rate_limited",
    "capability_disabled",
    "upstream_error",
    "internal_error",
    "upstream_timeout",
    "invalid_input",
    "input_too_large",
    "verification_unavailable",
    "verification_paths_unavailable",
    # The call's own budget (statekit.budget): time, output size, cancellation.
    "deadline_exceeded",
    "output_too_large",
    "cancelled",
    # A per-principal quota (live machines: how many and how many bytes one caller keeps).
    "quota_exceeded",
    # The call passed its memory budget (`--call-memory`): the call supervisor stopped it.
    "resource_exhausted",
]

ERROR_CODES: Final[frozenset[str]] = frozenset(ErrorCode.__args__)  # type: ignore[attr-defined]


class StatekitError(Exception):
    """Base class of every error statekit raises on purpose."""


class ToolError(StatekitError):
    """A tool failed with a code from the closed set; `details` is JSON-safe extra data."""

    def __init__(self, code: ErrorCode, message: str, details: dict[str, Any] | None = None) -> None:
        if code not in ERROR_CODES:
            raise ValueError(f"unknown error code {code!r}")
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message
        self.details = details or {}

    def to_dict(self) -> dict[str, Any]:
        """The error as the JSON object tools return: `{code, message, ...details}`."""
        return {"code": self.code, "message": self.message, **self.details}

    def to_envelope(self) -> dict[str, Any]:
        """The canonical resource envelope `{error: {code, message, issues?, retryable?}}`.

        Only those four keys: other details (an upstream status, say) stay out of it. A
        `retryable` the error does not state is implied by the code (rate limits and timeouts
        are worth retrying; nothing else is said).
        """
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        issues = self.details.get("issues")
        if isinstance(issues, list):
            body["issues"] = issues
        retryable = self.details.get("retryable")
        if isinstance(retryable, bool):
            body["retryable"] = retryable
        elif self.code in _RETRYABLE_CODES:
            body["retryable"] = True
        return {"error": body}


_RETRYABLE_CODES: Final[frozenset[str]] = frozenset({"rate_limited", "upstream_timeout"})


class MachineDefinitionError(StatekitError):
    """A machine config cannot be turned into a model; `path` locates the problem."""

    def __init__(self, message: str, path: str = "") -> None:
        super().__init__(f"{path}: {message}" if path else message)
        self.message = message
        self.path = path


class EngineError(StatekitError):
    """The engine could not run a step (a missing implementation, a throwing guard).

    The message is XState's own where XState throws; `where` adds the state or transition
    whose actions failed, which XState does not say.
    """

    where: str | None = None

    def describe(self) -> str:
        """The message with its location, for people."""
        return f"{self} (in {self.where})" if self.where else str(self)
