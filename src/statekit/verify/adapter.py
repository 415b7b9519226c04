"""What a verification adapter receives and returns."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from statekit.analysis.implemented import ImplementedMachine
from statekit.model.core import MachineModel


@dataclass(frozen=True)
class ExecutionPolicy:
    """The policy every adapter receives: no AI, no network. Adapters enforce it themselves."""

    ai: bool = False
    network: bool = False
    #: Wall-clock budget for the whole run, and for one path.
    timeout_seconds: float = 60.0
    path_timeout_seconds: float = 10.0

    def to_json(self) -> dict[str, Any]:
        return {"ai": self.ai, "network": self.network, "timeoutSeconds": self.timeout_seconds}


@dataclass(frozen=True)
class Binding:
    """A binding from the caller: driver content and/or the name of a host-registered driver."""

    content: str | None = None
    name: str | None = None


@dataclass(frozen=True)
class VerificationRequest:
    """One verification: the machine (with its implementations), its planned test paths,
    bindings, baseline and policy."""

    machine: ImplementedMachine
    model_ref: Mapping[str, Any]
    paths: Sequence[Mapping[str, Any]]
    bindings: Sequence[Binding] = ()
    baseline: Mapping[str, Any] | None = None
    policy: ExecutionPolicy = field(default_factory=ExecutionPolicy)

    @property
    def model(self) -> MachineModel:
        """The machine's model (its states and transitions)."""
        return self.machine.model


@dataclass(frozen=True)
class PathResult:
    path_id: str
    status: str  # passed | failed | error | skipped
    failed_step: int | None = None
    message: str | None = None
    duration_ms: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"pathId": self.path_id, "status": self.status, "failedStep": self.failed_step,
                "message": self.message, "durationMs": round(self.duration_ms, 3)}


class VerificationAdapter(Protocol):
    """The host-supplied `execute_verification`: runs the planned paths, one result per path.

    Any function of this signature conforms; an adapter object may also carry a `name`,
    which the report records (else its type name is used).
    """

    def __call__(self, request: VerificationRequest, /) -> Sequence[PathResult]: ...


#: The adapter's call signature, for hosts that pass a plain function.
ExecuteVerification = Callable[[VerificationRequest], Sequence[PathResult]]
