"""What a gated handler learns about its call, and how it reads it from the request context.

Tools registered with `@gate.tool` get a `GateCall` as their second argument. Handlers the
server serves itself (attached with `gate.bind`, on a low-level `Server`, an `MCPServer` or
FastMCP) read the same object with `current_call()`: the gate sets it in a context variable
around the handler, so it is visible from anywhere in the handler's task.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class GateCall:
    """What a gated tool handler learns about its call."""

    tool: str
    arguments: dict[str, Any]
    #: The workflow's store key (`invoice/session:<id>`, `invoice/handle:<h>`, ...): key your own data by it.
    key: str
    #: The workflow's state before the call (an engine snapshot); None when there is no
    #: workflow (a creating tool's new one aside), e.g. an unbound tool called without a handle.
    snapshot: Any
    #: The state handle (handle mode, or the one a creating tool just minted).
    handle: str | None
    #: The SDK's request context (`ServerRequestContext`); None when FastMCP hides it.
    request: Any
    #: For a call that fires an event: `<key>#<n>`, naming the n-th transition of this
    #: workflow. A retry of the same transition (after an error, or after a process died
    #: mid-call and its lease expired) gets the same id: use it as an idempotency key for
    #: side effects that must not happen twice.
    transition_id: str | None = None

    @property
    def state(self) -> Any:
        """The workflow's state value before the call."""
        return None if self.snapshot is None else self.snapshot.value

    @property
    def context(self) -> Any:
        """The workflow's context before the call."""
        return None if self.snapshot is None else self.snapshot.context


_current: ContextVar[GateCall | None] = ContextVar("statekit_gate_call", default=None)


def current_call() -> GateCall | None:
    """The `GateCall` of the gated tool call running in this task, or None outside one."""
    return _current.get()


async def run_with_call(call: GateCall, run: Callable[[], Awaitable[Any]]) -> Any:
    """Run `run()` with `call` visible through `current_call()`."""
    token = _current.set(call)
    try:
        return await run()
    finally:
        _current.reset(token)
