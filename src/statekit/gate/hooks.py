"""What `on_transition` hooks receive, and running them so that a failing hook never fails a call."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

logger = logging.getLogger("statekit.gate")


@dataclass(frozen=True)
class TransitionInfo:
    """What `on_transition` hooks receive for every committed transition."""

    key: str
    source: Any
    target: Any
    event: str
    #: The tool whose call fired the event; None for a timer (`after`) or an admin action.
    tool: str | None
    transition_id: str
    #: Epoch seconds (the gate's clock).
    time: float


TransitionHook = Callable[[TransitionInfo], Awaitable[None] | None]


async def run_hooks(hooks: Sequence[TransitionHook], info: TransitionInfo) -> None:
    """Call every hook with `info`; a hook that raises is logged and skipped."""
    for hook in hooks:
        try:
            outcome = hook(info)
            if inspect.isawaitable(outcome):
                await outcome
        except Exception:  # a hook must never fail (or undo) a committed transition
            logger.exception("statekit.gate: on_transition hook %r failed", hook)
