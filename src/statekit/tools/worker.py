"""A worker process of the call supervisor: it runs the calls its pipe brings, one at a time.

`statekit.tools.supervisor` starts these processes (from a fork server that imported this
module, so a new worker costs a fork, not the imports) and is the only one that talks to them.
Importing this module loads every built-in tool.

Each call runs the registry's own pipeline (`run_call_encoded`) under a `CallBudget` made from
the time the call has left, so loops that check their budget still end with a graceful
partial answer; the parent kills the process when no answer came at the deadline. The memory
budget is the address space: before each call the soft `RLIMIT_AS` is set to the worker's
baseline (measured at start, after the imports and the allocators' own reservations) plus the
call's budget, so an allocation past it fails with `MemoryError` in this process and nowhere
else. Such a call answers `resource_exhausted` and the worker exits, so its memory goes back
to the system.

The wire: the parent sends pickled requests (it is trusted); the worker answers bytes whose
first byte says what they are and whose second is `1` when the worker exits after them:

- `H` hello, JSON `{pid, rss}`: the worker is ready;
- `P` progress, JSON `[done, total, message]`;
- `R` a result: the pipeline's JSON of it, as the output limit measured it (encoded once);
- `E` an error, JSON `{code, message, details}`.

Only JSON crosses back: the worker runs callers' JavaScript in QuickJS, so what it says is
data to the parent, never something to unpickle.
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import signal
import socket
import struct
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from types import FrameType
from typing import Any

from statekit.budget import BudgetStop, CallBudget, memory_limit_error, running
from statekit.errors import ToolError
from statekit.tools import registry
from statekit.tools.launchers import read_status

try:
    import resource
except ImportError:  # pragma: no cover - not on POSIX: the parent's watchdog is the only memory bound
    resource = None  # type: ignore[assignment]

registry.tools()  # the fork server imports this module: every worker starts with the tools loaded

#: Signal the parent sends to cancel the running call (the client cancelled or went away).
CANCEL_SIGNAL = signal.SIGUSR1
#: A call whose address space came this close to its ceiling reached its memory budget (an
#: allocation failed there), whatever the code that saw the `MemoryError` made of it.
_CEILING_SLACK = 32 * 1024 * 1024
#: A worker whose address space grew by more than this over its baseline (allocator arenas and
#: caches a big call left behind) exits after its answer: the next call gets a fresh one.
RECYCLE_GROWTH = 128 * 1024 * 1024
#: Seconds between the fork server's looks for finished workers.
_REAP_SECONDS = 0.1
#: Tools that crossed whole (not built-in), kept by their pickled bytes.
_PORTABLE_CACHE_SIZE = 32


@dataclass(frozen=True)
class Limits:
    """The budget of one request: seconds left, output bytes, memory bytes, whether progress is wanted."""

    seconds: float | None
    max_output_bytes: int | None
    memory: int | None
    progress: bool = False


@dataclass(frozen=True)
class CallRequest:
    """Run a tool through the pipeline: a built-in's name, or a `ToolSpec` pickled whole."""

    tool: str | bytes
    arguments: dict[str, Any]
    #: The plain fields of the caller's `ToolContext` (host-only objects never cross).
    context: dict[str, Any]
    max_source_bytes: int | None
    limits: Limits


@dataclass(frozen=True)
class FunctionRequest:
    """Run `function(*args)` (a module-level function, or a `statekit` function's dotted name)."""

    function: Callable[..., Any] | str
    args: tuple[Any, ...]
    limits: Limits


def process_status() -> dict[str, int]:
    """This process's `VmSize`, `VmPeak` and `VmRSS` in bytes (Linux; empty elsewhere)."""
    return read_status(f"/proc/{os.getpid()}/status")


@dataclass
class _Worker:
    connection: Connection
    baseline: dict[str, int]
    budget: CallBudget | None = None
    portable: OrderedDict[bytes, registry.ToolSpec] = field(default_factory=OrderedDict)

    def reply(self, kind: bytes, body: bytes, *, last: bool = False) -> None:
        self.connection.send_bytes(kind + (b"1" if last else b"0") + body)

    def progress(self, done: float, total: float | None, message: str | None) -> None:
        self.reply(b"P", json.dumps([done, total, message]).encode())


_worker: _Worker | None = None


def _cancel(signum: int, frame: FrameType | None) -> None:
    """The parent's cancel: the running call stops at its next budget check."""
    if _worker is not None and _worker.budget is not None:
        _worker.budget.cancel()


def serve(connection: Connection, *, warm: bool = True) -> None:
    """The worker's life: say hello, then answer requests until the pipe closes or it recycles.

    `warm` runs a warm-up call first (a pooled worker; a command's one-call worker skips it)."""
    global _worker
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    signal.signal(CANCEL_SIGNAL, _cancel)
    # stdout may be the MCP stdio transport: nothing a tool prints may reach it.
    os.dup2(2, 1)
    # A session of its own is a scheduling group of its own (Linux autogroups): the CPU a long
    # call burns is charged to that group, which the supervisor lowers, not to the server's.
    with contextlib.suppress(OSError):
        os.setsid()
    if warm:
        _warm_up()
    worker = _worker = _Worker(connection, process_status())
    try:
        worker.reply(b"H", json.dumps({"pid": os.getpid(), "rss": worker.baseline.get("VmRSS", 0)}).encode())
        while True:
            request = connection.recv()
            kind, body, last = _answer(worker, request)
            worker.reply(kind, body, last=last)
            if last:
                return
    except (EOFError, OSError):
        return  # the parent is gone, closed the pool, or gave up on this worker


def zygote(control_fd: int) -> None:
    """The fork server's life: fork one worker per channel the parent sends, report their exits.

    It runs in a fresh interpreter that imported this module (every tool loaded) and never
    starts a thread, so forking it is safe and a worker costs a fork, not the imports. Nothing
    of the parent's `__main__` is run here (multiprocessing's fork server would run it again).
    """
    control = socket.socket(fileno=control_fd)
    control.settimeout(_REAP_SECONDS)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            message, fds, _flags, _address = socket.recv_fds(control, 16, 4)
        except TimeoutError:
            message, fds = None, []
        except OSError:
            return
        _report_exits(control)
        if message is None:
            continue
        if not message:
            return  # the parent closed the pool or is gone
        for fd in fds:
            if os.fork() == 0:
                control.close()
                code = 0
                try:
                    serve(Connection(fd))
                except BaseException:  # pragma: no cover - a worker that fails says so on stderr
                    import traceback

                    traceback.print_exc()
                    code = 1
                finally:
                    os._exit(code)
            os.close(fd)


def _report_exits(control: socket.socket) -> None:
    """Tell the parent how each finished worker ended (its exit code, or minus the signal)."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        try:
            control.sendall(b"X" + struct.pack("<ii", pid, os.waitstatus_to_exitcode(status)))
        except OSError:
            return


def _warm_up() -> None:
    """Run what every call needs once (schema checks, a QuickJS runtime), so the baseline the
    memory budget is measured from already holds what the allocators reserve for them."""
    machine = {"id": "warm", "initial": "a", "context": {"n": 0},
               "states": {"a": {"on": {"GO": {"target": "b", "guard": {"$js": "context.n === 0"}}}}, "b": {}}}
    with contextlib.suppress(ToolError):  # a warm-up that fails only costs a colder first call
        registry.call("simulate_machine", {"machine": machine, "events": ["GO"]}, supervised=False)


def _answer(worker: _Worker, request: CallRequest | FunctionRequest) -> tuple[bytes, bytes, bool]:
    limits = request.limits
    budget = worker.budget = CallBudget(seconds=limits.seconds, max_output_bytes=limits.max_output_bytes,
                                        on_progress=worker.progress if limits.progress else None)
    ceiling = _limit_memory(worker.baseline, limits.memory)
    failure: ToolError | None = None
    try:
        body = _call(worker, request) if isinstance(request, CallRequest) else _run_function(request, budget)
    except ToolError as error:
        failure = memory_limit_error(limits.memory) if _out_of_memory(error) else error
    except MemoryError:
        failure = memory_limit_error(limits.memory)
    except BudgetStop as stop:
        failure = stop.error
    finally:
        worker.budget = None
        _limit_memory(worker.baseline, None)
    status = process_status()
    if ceiling is not None and status.get("VmPeak", 0) >= ceiling - _CEILING_SLACK:
        failure = memory_limit_error(limits.memory)  # an allocation failed at the ceiling, whoever caught it
    recycle = (failure is not None and failure.code == "resource_exhausted") or _grew(worker.baseline, status)
    if failure is not None:
        return b"E", json.dumps({"code": failure.code, "message": failure.message,
                                 "details": failure.details}).encode(), recycle
    return b"R", body, recycle


def _call(worker: _Worker, request: CallRequest) -> bytes:
    spec = _tool(worker, request.tool)
    context = registry.ToolContext(**request.context)
    budget = worker.budget
    _, encoded = registry.run_call_encoded(spec, request.arguments, context,
                                           max_source_bytes=request.max_source_bytes, budget=budget)
    return encoded


def _run_function(request: FunctionRequest, budget: CallBudget) -> bytes:
    function = registry.resolve_function(request.function)
    with running(budget):
        try:
            result = function(*request.args)
        except (ToolError, MemoryError, BudgetStop):
            raise
        except RecursionError:
            raise ToolError("input_too_large", "input nests too deeply to process") from None
        except Exception as error:
            raise ToolError("internal_error", f"{getattr(function, '__name__', 'a function')} failed unexpectedly "
                            f"({type(error).__name__})") from error
        return registry.check_output_size(result, budget.max_output_bytes)


def _tool(worker: _Worker, tool: str | bytes) -> registry.ToolSpec:
    if isinstance(tool, str):
        spec = registry._BUILTIN.get(tool)
        if spec is None:
            raise ToolError("internal_error", f"the worker has no built-in tool {tool[:64]!r}")
        return spec
    cached = worker.portable.get(tool)
    if cached is None:
        cached = pickle.loads(tool)  # from the parent, which is trusted
        if not isinstance(cached, registry.ToolSpec):
            raise ToolError("internal_error", "the worker was sent something that is not a tool")
        worker.portable[tool] = cached
        if len(worker.portable) > _PORTABLE_CACHE_SIZE:
            worker.portable.popitem(last=False)
    else:
        worker.portable.move_to_end(tool)
    return cached


def _limit_memory(baseline: dict[str, int], memory: int | None) -> int | None:
    """Set the soft address-space limit to the baseline plus `memory` (None: lift it); the ceiling set."""
    if resource is None or "VmSize" not in baseline:
        return None
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    ceiling = None if memory is None else baseline["VmSize"] + memory
    if ceiling is not None and hard != resource.RLIM_INFINITY:
        ceiling = min(ceiling, hard)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (hard if ceiling is None else ceiling, hard))
    except (ValueError, OSError):  # pragma: no cover - the parent's watchdog still bounds the call
        return None
    return ceiling


def _out_of_memory(error: BaseException) -> bool:
    """Whether `error` came from a `MemoryError` (the pipeline wraps a tool's as `internal_error`)."""
    seen: set[int] = set()
    cause: BaseException | None = error
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, MemoryError):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False


def _grew(baseline: dict[str, int], status: dict[str, int]) -> bool:
    return bool(status) and status.get("VmPeak", 0) > baseline.get("VmSize", 0) + RECYCLE_GROWTH
