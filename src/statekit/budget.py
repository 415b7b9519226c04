"""The budget of one tool call: a time limit, an output limit, cancellation and progress.

The tools pipeline starts every call inside `running(CallBudget(...))`. Code that can run
long for a small input (traversal, layout, conversion, simulation, extraction) calls
`check_budget()` in its loops; it returns at once when the call is within its budget and
raises a coded `ToolError` when it is not:

- `deadline_exceeded` when the call has run past its time budget (`--call-timeout`);
- `cancelled` when the client cancelled the call or went away.

It raises them wrapped in `BudgetStop`, a `BaseException`: the engine (like XState) turns any
`Exception` from an implementation into a machine error, and a stop must get through every
such handler to the pipeline, which unwraps it (`statekit.tools.registry.call`). A loop that
can return what it found so far (a traversal) catches `BudgetStop` and reports a truncation.

Code that builds a result piece by piece calls `charge_output(n)` with each piece's size, so a
result that would grow past the output limit (`--max-output-bytes`) is refused with
`output_too_large` before it is built, not after. `report_progress(done, total)` tells a
client that asked for progress (an MCP progress token, the CLI's progress bar).

Outside a call (plain library use) every function here is a no-op. This module sits at the
bottom of the layer contract (only `errors` below it), so every layer may call it.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from statekit.errors import ToolError

#: Seconds a tool call may run (`statekit serve --call-timeout`, `STATEKIT_CALL_TIMEOUT`).
DEFAULT_CALL_SECONDS = 60.0
#: Bytes of JSON a tool result may hold (`statekit serve --max-output-bytes`).
DEFAULT_MAX_OUTPUT_BYTES = 16 * 1024 * 1024
#: Bytes of memory one tool call may use beyond its worker's baseline (`--call-memory`,
#: `STATEKIT_CALL_MEMORY`); the call supervisor (`statekit.tools.supervisor`) enforces it.
DEFAULT_CALL_MEMORY = 1024 * 1024 * 1024
#: `check_budget` calls between two looks at the clock (a look costs a system call).
_CLOCK_EVERY = 32
#: Seconds between two progress reports passed on (a client needs no more).
_PROGRESS_EVERY = 0.25

#: `on_progress(done, total, message)`; called from the thread doing the work.
ProgressCallback = Callable[[float, float | None, str | None], None]


@dataclass
class CallBudget:
    """The limits of one call, and its cancellation flag (settable from any thread)."""

    seconds: float | None = DEFAULT_CALL_SECONDS
    max_output_bytes: int | None = DEFAULT_MAX_OUTPUT_BYTES
    on_progress: ProgressCallback | None = None
    deadline: float | None = field(default=None, init=False)
    output_bytes: int = field(default=0, init=False)
    _cancelled: threading.Event = field(default_factory=threading.Event, init=False, repr=False)
    _ticks: int = field(default=0, init=False, repr=False)
    _last_progress: float = field(default=float("-inf"), init=False, repr=False)

    def start(self) -> CallBudget:
        """Start the clock (once; a started budget keeps its deadline)."""
        if self.deadline is None and self.seconds is not None:
            self.deadline = time.monotonic() + self.seconds
        return self

    def cancel(self) -> None:
        """Ask the work to stop at its next budget check (thread-safe)."""
        self._cancelled.set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def expired(self) -> bool:
        return self.deadline is not None and time.monotonic() > self.deadline

    def check(self, *, force: bool = False) -> None:
        """Raise `cancelled` or `deadline_exceeded` when the call must stop."""
        if self._cancelled.is_set():
            raise BudgetStop(time_limit_error(self.seconds) if self.expired() else cancelled_error())
        self._ticks += 1
        if (force or self._ticks % _CLOCK_EVERY == 0) and self.expired():
            self._cancelled.set()
            raise BudgetStop(time_limit_error(self.seconds))

    def charge(self, size: int) -> None:
        """Count `size` more bytes of output; `output_too_large` once past the limit."""
        self.output_bytes += size
        if self.max_output_bytes is not None and self.output_bytes > self.max_output_bytes:
            raise BudgetStop(output_limit_error(self.max_output_bytes, self.output_bytes))

    def progress(self, done: float, total: float | None = None, message: str | None = None) -> None:
        """Pass progress on to the listener, at most every quarter second (and always at the end)."""
        if self.on_progress is None:
            return
        now = time.monotonic()
        if now - self._last_progress < _PROGRESS_EVERY and not (total is not None and done >= total):
            return
        self._last_progress = now
        try:
            self.on_progress(done, total, message)
        except Exception:  # a listener's failure (a client gone) never fails the work itself
            self.on_progress = None


_BYTE_UNITS = {"": 1, "b": 1, "k": 1024, "kb": 1024, "kib": 1024, "m": 1024**2, "mb": 1024**2, "mib": 1024**2,
               "g": 1024**3, "gb": 1024**3, "gib": 1024**3}


def parse_byte_size(text: str) -> int:
    """`1073741824`, `512M`, `512MiB`, `1G`, `1.5GiB` as a positive number of bytes (units are binary)."""
    cleaned = text.strip().lower().replace(" ", "")
    number = cleaned.rstrip("kmgib")
    unit = cleaned[len(number):]
    try:
        value = float(number) * _BYTE_UNITS[unit]
    except (KeyError, ValueError):
        raise ValueError(f"a size is a number of bytes, optionally with K, M or G (MiB, GiB): not {text!r}") from None
    if not value >= 1:
        raise ValueError(f"a size must be at least one byte, not {text!r}")
    return int(value)


def cancelled_error() -> ToolError:
    return ToolError("cancelled", "the call was cancelled (the client cancelled it or went away)")


def time_limit_error(seconds: float | None) -> ToolError:
    limit = "its" if seconds is None else f"its {seconds:g}-second"
    return ToolError("deadline_exceeded", f"the call ran past {limit} time budget (--call-timeout) and was stopped",
                     {"limitSeconds": seconds})


def memory_limit_error(limit: int | None) -> ToolError:
    shown = "its" if limit is None else f"its {limit // (1024 * 1024)} MiB"
    return ToolError(
        "resource_exhausted",
        f"the call used up {shown} memory budget (--call-memory) and was stopped; ask for less "
        "(a smaller maxStates or limit, fewer events) or raise the limit",
        {"limit": limit})


def output_limit_error(limit: int, size: int) -> ToolError:
    return ToolError(
        "output_too_large",
        f"the result would be over the {limit}-byte output limit (--max-output-bytes); ask for less "
        "(fewer events, a smaller limit) or raise the limit",
        {"limit": limit, "size": size})


class BudgetStop(BaseException):
    """The call must stop now; `error` is the coded `ToolError` to answer with."""

    def __init__(self, error: ToolError) -> None:
        super().__init__(error.message)
        self.error = error


_current: ContextVar[CallBudget | None] = ContextVar("statekit_call_budget", default=None)


@contextmanager
def running(budget: CallBudget) -> Iterator[CallBudget]:
    """Make `budget` (started now) the current call's budget inside the block."""
    token = _current.set(budget.start())
    try:
        yield budget
    finally:
        _current.reset(token)


def current_budget() -> CallBudget | None:
    """The budget of the call being run, or None outside the tools pipeline."""
    return _current.get()


def check_budget(*, force: bool = False) -> None:
    """Stop the work (raise `BudgetStop`) if the current call is cancelled or out of time.

    Cheap enough for inner loops: a context-variable read, and a clock read every 32 calls.
    `force` reads the clock now: for a loop whose every turn may be long (one turn runs
    sandboxed JavaScript for up to its per-call limit), where 32 turns would overrun by far.
    """
    budget = _current.get()
    if budget is not None:
        budget.check(force=force)


def charge_output(size: int) -> None:
    """Count `size` bytes toward the current call's output limit."""
    budget = _current.get()
    if budget is not None:
        budget.charge(size)


def check_result_size(result: object) -> None:
    """Refuse now, with `output_too_large`, a result over the current call's output limit.

    For a tool that changes state: it checks its answer before it commits, so a call refused
    for its size leaves nothing behind (the pipeline checks every result again at its end).
    """
    budget = _current.get()
    if budget is None or budget.max_output_bytes is None:
        return
    try:
        size = len(json.dumps(result, ensure_ascii=False, allow_nan=True).encode("utf-8", "replace"))
    except (TypeError, ValueError, RecursionError):
        return  # not JSON: the pipeline's own check answers it (internal_error)
    if size > budget.max_output_bytes:
        raise BudgetStop(output_limit_error(budget.max_output_bytes, size))


def report_progress(done: float, total: float | None = None, message: str | None = None) -> None:
    """Report progress of the current call to whoever asked for it (no-op otherwise)."""
    budget = _current.get()
    if budget is not None:
        budget.progress(done, total, message)


def seconds_left() -> float | None:
    """Seconds until the current call's deadline (None: no deadline, or outside a call)."""
    budget = _current.get()
    if budget is None or budget.deadline is None:
        return None
    return max(0.0, budget.deadline - time.monotonic())
