"""The call supervisor: every tool call's time, memory and output bounded by the process that runs it.

A Python thread cannot be stopped from outside and a `MemoryError` lands wherever an allocation
happens to fail, so the bound is a process: a warm pool of worker processes
(`statekit.tools.worker`), each running one call at a time through the registry's pipeline.

- **Time.** The worker runs the call under its `CallBudget` (loops that check it still give
  graceful partial answers, `truncatedReason`). When no answer came by the deadline plus
  `KILL_GRACE_SECONDS`, the supervisor kills the worker (SIGKILL: it stops using CPU at once),
  answers `deadline_exceeded` and starts a replacement. A cancelled call (the client cancelled
  or went away) is signalled to the worker, whose budget stops at its next check, and killed
  after the same grace.
- **Memory.** The worker sets its address-space limit to its baseline plus the call's budget
  (`ToolContext.call_memory`, `--call-memory`) before each call; a call past it answers
  `resource_exhausted` and its worker exits. A watchdog thread here also reads each busy
  worker's resident size and kills one past its budget (the backstop when the limit cannot be
  set). A worker that grew, or that served `max_calls` calls, is replaced.
- **Output.** The worker measures the result's JSON against the output limit before it sends
  it; only JSON crosses back, and it is encoded once.

Host-side tools (`ToolSpec.host_side`: they need the live-machine store, the verification
adapter or the resource provider, which stay in this process) run in the calling thread; what
they hand to `context.compute` runs in a worker under the call's budget (`run_function`).

Workers start from a fork server (`multiprocessing`'s `forkserver`, this package's tools
preloaded): the server process has threads, and forking a threaded process is unsafe. They
start in the background, so building a server never waits for them; a call waits for a free
worker within its own deadline.

Short calls never wait behind long ones, by two rules kept here:

- **A spare.** While any call runs, one idle worker is kept started (a replacement starts as
  soon as a worker is taken), and a call that finds none starts one more at once, up to
  `max_workers`; past that, calls queue.
- **Priority.** A call that has run longer than `LONG_CALL_SECONDS` has its worker reniced to
  `LONG_CALL_NICE`, so the scheduler favours the short calls (and the server's own loop) over
  it; the worker is set back to nice 0 before it takes another call, or replaced when that
  is not permitted.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import pickle
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace
from multiprocessing.connection import Connection
from typing import Any

from statekit.budget import (
    CallBudget,
    cancelled_error,
    current_budget,
    memory_limit_error,
    time_limit_error,
)
from statekit.errors import ERROR_CODES, ToolError
from statekit.tools import registry
from statekit.tools.launchers import launcher, read_status
from statekit.tools.registry import JSONObject, ToolContext, ToolSpec

logger = logging.getLogger(__name__)

#: Seconds past a call's deadline (or its cancel) the worker has to answer before it is killed.
KILL_GRACE_SECONDS = 1.0
#: A call older than this is a long call: its worker runs at `LONG_CALL_NICE`.
LONG_CALL_SECONDS = 0.1
LONG_CALL_NICE = 15
#: The pool grows past its size (a spare while calls run, one more per waiting call) up to this
#: many times its size (each worker's call keeps its own memory budget); the extra workers leave
#: after this many seconds idle.
BURST_FACTOR = 4
SURPLUS_IDLE_SECONDS = 5.0
#: Calls one worker serves before it is replaced (bounds what a slow leak can keep).
DEFAULT_MAX_CALLS = 1000
#: Seconds a new worker may take to say hello.
_START_SECONDS = 60.0
#: How often a waiting call looks at its cancel flag.
_POLL_SECONDS = 0.05
#: How often the watchdog looks for long calls to renice and at resident sizes (a long call runs
#: at full priority for up to `LONG_CALL_SECONDS` plus this).
_WATCH_SECONDS = 0.02
#: Resident bytes a worker may hold over its baseline plus the call's budget before the watchdog
#: kills it (the address-space limit normally stops the call first).
_WATCHDOG_SLACK = 64 * 1024 * 1024
#: Worker starts that may fail in a row before waiting calls are told the pool cannot start.
_MAX_START_FAILURES = 3
#: The `ToolContext` fields that hold the host's own objects: they never cross to a worker
#: (every other field is plain data and does).
HOST_ONLY_CONTEXT = frozenset({"resource_provider", "verification_adapter", "shared", "compute"})


def default_workers() -> int:
    """`STATEKIT_WORKERS`, else one worker per core (at least two, so one long call never blocks all)."""
    text = os.environ.get("STATEKIT_WORKERS", "").strip()
    if text:
        try:
            value = int(text)
        except ValueError:
            raise ValueError(f"STATEKIT_WORKERS must be a positive whole number, not {text!r}") from None
        if value < 1:
            raise ValueError(f"STATEKIT_WORKERS must be a positive whole number, not {text!r}")
        return value
    return max(2, os.cpu_count() or 1)


@dataclass(eq=False)
class _Worker:
    connection: Connection
    pid: int
    baseline_rss: int
    calls: int = 0
    #: The running call's memory budget (the watchdog's measure), None when idle or unbounded.
    memory: int | None = None
    busy: bool = False
    #: When the running call was handed to it, and when it last went idle (`time.monotonic()`).
    busy_since: float = 0.0
    idle_since: float = 0.0
    killed_for_memory: bool = False
    dead: bool = False
    recycle: bool = False
    reaped: bool = False
    #: Whether its running call was reniced as a long call (set back before its next call).
    reniced: bool = False


class Supervisor:
    """A warm pool of worker processes that runs tool calls within their time and memory budgets.

        with Supervisor(workers=2) as supervisor:
            result = supervisor.call("validate_machine", {"machine": config})

    `start_method` is `forkserver` (safe in a process with threads, such as a server) or
    `fork` (a single-threaded command about to make one call: no fork server to start).
    """

    _shared: Supervisor | None = None
    _shared_lock = threading.Lock()

    def __init__(self, *, workers: int | None = None, max_calls: int = DEFAULT_MAX_CALLS,
                 start_method: str = "forkserver", kill_grace: float = KILL_GRACE_SECONDS,
                 call_memory: int | None = None, max_workers: int | None = None,
                 surplus_idle_seconds: float = SURPLUS_IDLE_SECONDS) -> None:
        self.workers = default_workers() if workers is None else workers
        if self.workers < 1:
            raise ValueError("a supervisor needs at least one worker")
        if not 0 < kill_grace <= KILL_GRACE_SECONDS:
            raise ValueError(f"kill_grace must be above 0 and at most {KILL_GRACE_SECONDS} s")
        #: Workers the pool may grow to while every worker is held by a long call (see `_grow`).
        self.max_workers = BURST_FACTOR * self.workers if max_workers is None else max_workers
        if self.max_workers < self.workers:
            raise ValueError("max_workers must be at least workers")
        self.surplus_idle_seconds = surplus_idle_seconds
        self.max_calls = max_calls
        self.kill_grace = kill_grace
        #: The memory budget of every call this pool runs; None: each call's context says.
        self.call_memory = call_memory
        self._launcher = launcher(start_method)
        self._forks_here = start_method == "fork"
        self._condition = threading.Condition()
        self._idle: list[_Worker] = []
        self._all: set[_Worker] = set()
        self._starting = 0
        self._waiting = 0
        self._start_failures = 0
        self._started = False
        self._closed = False
        #: What the pool has done, for tests and operators: calls answered, workers started and killed.
        self.counts = {"calls": 0, "functions": 0, "started": 0, "killed": 0, "recycled": 0, "grown": 0, "reniced": 0}

    # -- the pool ------------------------------------------------------------------------------

    @classmethod
    def shared(cls) -> Supervisor:
        """This process's shared supervisor (`STATEKIT_WORKERS` workers), started on first use."""
        with cls._shared_lock:
            if cls._shared is None or cls._shared._closed:
                cls._shared = cls().start()
            return cls._shared

    def start(self) -> Supervisor:
        """Start the workers in the background (returns at once) and the memory watchdog."""
        with self._condition:
            if self._closed:
                raise RuntimeError("this supervisor is closed")
            if not self._started:
                self._started = True
                self._fill()
                threading.Thread(target=self._watch, name="statekit-supervisor-watchdog", daemon=True).start()
        return self

    def close(self) -> None:
        """Stop every worker (a call still running answers `cancelled`)."""
        with self._condition:
            self._closed = True
            workers = list(self._all)
            self._idle.clear()
            self._condition.notify_all()
        for worker in workers:
            self._kill(worker)
        self._launcher.close()

    def __enter__(self) -> Supervisor:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def worker_pids(self) -> list[int]:
        """The process ids of the live workers."""
        with self._condition:
            return sorted(worker.pid for worker in self._all if not worker.dead)

    def _fill(self) -> None:
        """Start workers until the pool (with those starting) has its size; call with the lock held.

        From a fork server they start on background threads; a plain fork happens here, on the
        calling thread (forking from a helper thread would make the process threaded first)."""
        missing = self.workers - len(self._all) - self._starting
        for _ in range(max(0, missing)):
            self._starting += 1
            if self._forks_here:
                self._start_one()
            else:
                threading.Thread(target=self._start_one, name="statekit-supervisor-start", daemon=True).start()

    def _start_one(self) -> None:
        worker: _Worker | None = None
        try:
            worker = self._spawn()
        except Exception:
            logger.exception("a call worker failed to start")
        with self._condition:
            self._starting -= 1
            if worker is None:
                self._start_failures += 1
                if self._start_failures < _MAX_START_FAILURES and not self._closed:
                    self._fill()
            elif self._closed:
                worker.dead = True
            else:
                self._start_failures = 0
                self._all.add(worker)
                self._idle.append(worker)
                self.counts["started"] += 1
            self._condition.notify_all()
        if worker is not None and worker.dead:
            self._kill(worker)

    def _spawn(self) -> _Worker:
        connection = self._launcher.spawn()
        try:
            if not connection.poll(_START_SECONDS):
                raise RuntimeError("a call worker did not start in time")
            message = connection.recv_bytes()
            if message[:1] != b"H":
                raise RuntimeError("a call worker started with an unexpected message")
            hello = json.loads(message[2:])
        except BaseException:
            connection.close()  # a worker that started late reads the end of its channel and leaves
            raise
        return _Worker(connection, int(hello["pid"]), int(hello.get("rss", 0)))

    def _acquire(self, budget: CallBudget) -> _Worker:
        with self._condition:
            if not self._started:
                self.start()
            warming = not self.counts["started"]
            self._waiting += 1
            try:
                return self._take(budget, warming)
            finally:
                self._waiting -= 1

    def _take(self, budget: CallBudget, warming: bool) -> _Worker:
        """`_acquire`'s wait for an idle worker (lock held)."""
        while True:
            while not self._idle:
                if self._closed:
                    raise cancelled_error()
                if self._start_failures >= _MAX_START_FAILURES and not self._all and not self._starting:
                    raise ToolError("internal_error", "the call supervisor could not start a worker process")
                if warming and not self.counts["started"] and not budget.cancelled:
                    # The pool is starting (a fresh interpreter importing the tools): a call that
                    # came meanwhile waits for it, and its time budget starts when it is taken.
                    self._condition.wait(_POLL_SECONDS)
                    continue
                _raise_if_stopped(budget)
                self._grow()
                left = None if budget.deadline is None else budget.deadline - time.monotonic()
                self._condition.wait(_POLL_SECONDS if left is None else max(0.0, min(_POLL_SECONDS, left)))
            worker = self._idle.pop()
            if worker.connection.poll(0):
                # An idle worker has nothing to say: this one died (killed from outside). Replace it.
                worker.dead = True
                self._retire_dead(worker)
                continue
            worker.busy = True
            worker.busy_since = time.monotonic()
            if not self._forks_here:
                self._grow(spare=True)
            if warming and budget.deadline is not None and budget.seconds is not None:
                budget.deadline = time.monotonic() + budget.seconds
            return worker

    def _grow(self, *, spare: bool = False) -> None:
        """Start workers (lock held) until every call waiting for one has one coming, plus one
        idle spare when `spare` (a worker was just taken): a new call never waits for a fork
        while the pool is below `max_workers`. The pool shrinks back as the extra workers stay
        idle (`_shrink`). A plain fork (`fork`: a single-threaded command) keeps no spare: it
        would fork on the caller's thread before its call."""
        if self._closed:
            return
        waiting = max(0, self._waiting - (1 if spare else 0))  # the caller that just took one is served
        wanted = waiting + (1 if spare else 0) - len(self._idle) - self._starting
        room = self.max_workers - len(self._all) - self._starting
        for _ in range(max(0, min(wanted, room))):
            self._starting += 1
            self.counts["grown"] += 1
            if self._forks_here:
                self._start_one()
            else:
                threading.Thread(target=self._start_one, name="statekit-supervisor-start", daemon=True).start()

    def _shrink(self) -> None:
        """Let the extra workers `_grow` started leave once they have been idle a while (never
        the last idle one while a call runs: that is the spare)."""
        leaving = []
        with self._condition:
            now = time.monotonic()
            running = any(worker.busy for worker in self._all)
            for worker in list(self._idle):
                if len(self._all) <= self.workers or (running and len(self._idle) <= 1):
                    break
                if now - worker.idle_since > self.surplus_idle_seconds:
                    self._idle.remove(worker)
                    self._all.discard(worker)
                    leaving.append(worker)
        for worker in leaving:
            self._kill(worker)

    def _retire_dead(self, worker: _Worker) -> None:
        """Forget a worker found dead while idle, and start its replacement (lock held)."""
        self._all.discard(worker)
        worker.connection.close()
        self._launcher.exit_code(worker.pid, 0.0)  # a forked child is reaped (a fork server's reaps its own)
        if not self._closed:
            self._fill()

    def _release(self, worker: _Worker) -> None:
        with self._condition:  # the watchdog renices only busy workers, under this lock
            worker.busy = False
            restored = _restore_priority(worker)
        worker.memory = None
        worker.calls += 1
        worker.idle_since = time.monotonic()
        retire = worker.dead or worker.recycle or worker.calls >= self.max_calls or not restored
        if retire:
            if not worker.dead:
                self.counts["recycled"] += 1
            self._kill(worker)
        with self._condition:
            if retire:
                self._all.discard(worker)
                if not self._closed:
                    self._fill()
            elif not self._closed:
                self._idle.append(worker)
            self._condition.notify_all()
        if self._closed and not retire:
            self._kill(worker)

    def _kill(self, worker: _Worker) -> None:
        if not worker.dead:
            worker.dead = True
            _signal(worker, signal.SIGKILL)
        worker.connection.close()
        if not worker.reaped:
            worker.reaped = True
            self._launcher.exit_code(worker.pid, 5.0)  # reaped: a killed worker leaves no zombie

    def _watch(self) -> None:
        """Kill a busy worker whose resident memory passed its call's budget (the backstop)."""
        while not self._closed:
            time.sleep(_WATCH_SECONDS)
            self._shrink()
            with self._condition:
                busy = [worker for worker in self._all if worker.busy]
            self._renice_long_calls(busy)
            for worker in busy:
                if worker.memory is None:
                    continue
                resident = read_status(f"/proc/{worker.pid}/status").get("VmRSS", 0)
                budget = worker.memory
                if budget is not None and worker.busy and resident > worker.baseline_rss + budget + _WATCHDOG_SLACK:
                    logger.warning("call worker %d passed its memory budget (%d MiB resident); killed",
                                   worker.pid, resident // (1024 * 1024))
                    worker.killed_for_memory = True
                    self.counts["killed"] += 1
                    self._kill_now(worker)

    def _renice_long_calls(self, busy: list[_Worker]) -> None:
        """Lower the priority of each worker whose call is older than `LONG_CALL_SECONDS`, so the
        scheduler runs short calls (and the server's loop) first while long ones share what is left."""
        for worker in busy:
            with self._condition:  # a worker released meanwhile is idle and keeps its priority
                if (worker.reniced or not worker.busy or worker.dead
                        or time.monotonic() - worker.busy_since <= LONG_CALL_SECONDS):
                    continue
                worker.reniced = True  # set first: the reset at release must run whatever happens here
                if _set_priority(worker.pid, LONG_CALL_NICE):
                    self.counts["reniced"] += 1

    def _kill_now(self, worker: _Worker) -> None:
        _signal(worker, signal.SIGKILL)

    # -- calls ---------------------------------------------------------------------------------

    def call(self, tool: str | ToolSpec, arguments: Mapping[str, Any] | None = None,
             context: ToolContext | None = None, *, max_source_bytes: int | None = None,
             budget: CallBudget | None = None, principal: str | None = None) -> JSONObject:
        """Run the tool through the pipeline in a worker; failures raise `ToolError` (as `run_call`)."""
        spec = registry.get(tool) if isinstance(tool, str) else tool
        if context is None:
            context = registry.default_context()
        if principal is not None:
            context = replace(context, principal=principal)
        if self.call_memory is not None and context.call_memory != self.call_memory:
            context = replace(context, call_memory=self.call_memory)
        if budget is None:
            budget = current_budget() or CallBudget(seconds=context.call_seconds,
                                                    max_output_bytes=context.max_output_bytes)
        if spec.host_side:
            with self._routing_compute(context.call_memory):
                return registry.run_call(spec, arguments, context, max_source_bytes=max_source_bytes, budget=budget)
        limit = max_source_bytes if max_source_bytes is not None else context.max_source_bytes
        args = _as_arguments(arguments)
        registry.check_source_size(args, limit)  # what crosses to the worker is already bounded
        budget.start()
        request = _call_request(spec, args, context, limit, budget)
        self.counts["calls"] += 1
        result: JSONObject = self._exchange(request, budget, context.call_memory)
        return result

    def run_function(self, function: Callable[..., Any] | str, args: tuple[Any, ...] = (),
                     budget: CallBudget | None = None, *, memory: int | None = None) -> Any:
        """`function(*args)` in a worker under `budget` (the current call's by default).

        `function` is a module-level function (it crosses by name) or a `statekit` function's
        dotted name; `args` cross pickled and the result comes back as JSON (a tuple becomes a
        list). Failures raise `ToolError` as a tool call's would.
        """
        from statekit.tools.worker import FunctionRequest

        if budget is None:
            budget = current_budget() or CallBudget()
        if memory is None:
            memory = registry.default_context().call_memory
        budget.start()
        request = FunctionRequest(function, tuple(args), _limits(budget, memory))
        self.counts["functions"] += 1
        return self._exchange(request, budget, memory)

    @contextmanager
    def _routing_compute(self, memory: int | None) -> Iterator[None]:
        """Inside the block, `context.compute` of a host-side tool runs in this pool's workers."""
        def route(function: Callable[..., Any] | str, args: tuple[Any, ...]) -> Any:
            return self.run_function(function, args, memory=memory)

        token = registry.compute_route.set(route)
        try:
            yield
        finally:
            registry.compute_route.reset(token)

    def _exchange(self, request: Any, budget: CallBudget, memory: int | None) -> Any:
        worker = self._acquire(budget)
        try:
            worker.memory = memory
            worker.killed_for_memory = False
            request = replace(request, limits=_limits(budget, memory))  # the time left now
            try:
                worker.connection.send(request)
            except (OSError, ValueError):
                worker.dead = True
                raise ToolError("internal_error", "the call worker could not take the call") from None
            return self._await_answer(worker, budget)
        finally:
            self._release(worker)

    def _await_answer(self, worker: _Worker, budget: CallBudget) -> Any:
        signalled_at: float | None = None
        while True:
            now = time.monotonic()
            if budget.cancelled and signalled_at is None and not budget.expired():
                _signal(worker, signal.SIGUSR1)  # the worker's budget stops at its next check
                signalled_at = now
            kill_at = None if budget.deadline is None else budget.deadline + self.kill_grace
            if signalled_at is not None:
                kill_at = signalled_at + self.kill_grace if kill_at is None else min(kill_at, signalled_at + self.kill_grace)
            wait = _POLL_SECONDS if kill_at is None else max(0.0, min(_POLL_SECONDS, kill_at - now))
            if worker.connection.poll(wait):
                try:
                    message = worker.connection.recv_bytes()
                except (EOFError, OSError):
                    raise self._died(worker) from None
                kind, last, body = message[:1], message[1:2] == b"1", message[2:]
                if kind == b"P":
                    _pass_progress(budget, body)
                    continue
                worker.recycle = last
                if kind == b"R":
                    return json.loads(body.decode("utf-8", "surrogatepass"))
                if kind == b"E":
                    raise _error_from(body)
                worker.dead = True
                raise ToolError("internal_error", "the call worker answered something unexpected")
            if kill_at is not None and time.monotonic() >= kill_at:
                self.counts["killed"] += 1
                self._kill_now(worker)
                worker.dead = True
                if budget.expired():
                    logger.warning("a call ran past its %ss budget without answering; its worker was killed",
                                   budget.seconds)
                    raise time_limit_error(budget.seconds)
                raise cancelled_error()

    def _died(self, worker: _Worker) -> ToolError:
        """The error for a call whose worker died under it."""
        worker.dead = True
        code = self._launcher.exit_code(worker.pid, 1.0)
        worker.reaped = True
        if worker.killed_for_memory or code == -signal.SIGKILL:
            # Ours (the watchdog) or the kernel's out-of-memory killer: both mean memory.
            return memory_limit_error(worker.memory)
        logger.error("call worker %d died (exit code %s)", worker.pid, code)
        return ToolError("internal_error", f"the worker process running the call stopped unexpectedly (exit code {code})")

    def compute(self, function: Callable[..., Any] | str, *args: Any) -> Any:
        """`ToolContext.compute` bound to this pool, under the current call's budget."""
        return self.run_function(function, args)


def _as_arguments(arguments: Mapping[str, Any] | None) -> JSONObject:
    if arguments is None:
        return {}
    if not isinstance(arguments, Mapping):
        raise ToolError("invalid_input", "tool arguments must be a JSON object")
    return dict(arguments)


def _limits(budget: CallBudget, memory: int | None) -> Any:
    from statekit.tools.worker import Limits

    left = None if budget.deadline is None else max(0.0, budget.deadline - time.monotonic())
    return Limits(seconds=left, max_output_bytes=budget.max_output_bytes, memory=memory,
                  progress=budget.on_progress is not None)


def _raise_if_stopped(budget: CallBudget) -> None:
    if budget.expired():
        raise time_limit_error(budget.seconds)
    if budget.cancelled:
        raise cancelled_error()


def _signal(worker: _Worker, number: int) -> None:
    with contextlib.suppress(ProcessLookupError):  # it died already
        os.kill(worker.pid, number)


def _set_priority(pid: int, nice: int) -> bool:
    """Set process `pid` to `nice`: every thread of it and of the processes it started (a layout
    engine; on Linux a nice value is per thread), and its scheduling group (each worker has a
    session, so an autogroup, of its own: where autogroups are on, groups share the CPU by the
    group's nice, whatever its tasks' nice values). False when that was not permitted."""
    try:
        for thread in _threads_below(pid):
            with contextlib.suppress(ProcessLookupError):  # a thread that ended meanwhile
                os.setpriority(os.PRIO_PROCESS, thread, nice)
    except OSError:
        return False
    return _set_group_nice(pid, nice)


def _set_group_nice(pid: int, nice: int) -> bool:
    """Write the nice value of `pid`'s autogroup; True when autogroups are off or absent."""
    path = f"/proc/{pid}/autogroup"
    try:
        with open("/proc/sys/kernel/sched_autogroup_enabled") as enabled:
            if enabled.read().strip() != "1":
                return True
        with open(path, "w") as group:
            group.write(str(nice))
    except FileNotFoundError:
        return True  # no autogroups here, or the process is gone
    except OSError:
        return False  # not permitted (or rate-limited): a worker left low is replaced
    return True


def _threads_below(pid: int) -> list[int]:
    """The thread ids of process `pid` and its descendants (just `pid` without /proc)."""
    found: list[int] = []
    processes = [pid]
    while processes and len(found) < 4096:
        process = processes.pop()
        try:
            threads = [int(name) for name in os.listdir(f"/proc/{process}/task")]
        except (OSError, ValueError):
            threads = [process]
        found.extend(threads)
        for thread in threads:
            with contextlib.suppress(OSError, ValueError), \
                    open(f"/proc/{process}/task/{thread}/children") as children:
                processes.extend(int(child) for child in children.read().split())
    return found


def _restore_priority(worker: _Worker) -> bool:
    """Set a reniced worker back to nice 0 before its next call; False (the worker must be
    replaced) when this process may not raise a priority (no CAP_SYS_NICE)."""
    if not worker.reniced or worker.dead:
        return True
    if not _set_priority(worker.pid, 0):
        logger.info("call worker %d could not be set back to nice 0; replaced", worker.pid)
        return False
    worker.reniced = False
    return True


def _pass_progress(budget: CallBudget, body: bytes) -> None:
    listener = budget.on_progress
    if listener is None:
        return
    try:
        done, total, message = json.loads(body)
        listener(float(done), None if total is None else float(total), None if message is None else str(message))
    except Exception:  # a listener's failure (a client gone) never fails the call
        budget.on_progress = None


def _error_from(body: bytes) -> ToolError:
    try:
        data = json.loads(body)
        code, message, details = data["code"], str(data["message"]), data.get("details") or {}
    except (ValueError, KeyError, TypeError):
        return ToolError("internal_error", "the call worker answered an unreadable error")
    if code not in ERROR_CODES or not isinstance(details, dict):
        return ToolError("internal_error", "the call worker answered an error outside the closed set")
    return ToolError(code, message, details)


_PORTABLE: dict[int, tuple[ToolSpec, bytes]] = {}
_PORTABLE_LOCK = threading.Lock()


def _tool_reference(spec: ToolSpec) -> str | bytes:
    """A built-in tool crosses by name; any other crosses pickled whole (its functions by name)."""
    if registry.is_builtin(spec):
        return spec.name
    with _PORTABLE_LOCK:
        known = _PORTABLE.get(id(spec))
        if known is not None and known[0] is spec:
            return known[1]
    portable = replace(spec, summarize=None, meta=None)
    try:
        data = pickle.dumps(portable)
    except Exception:
        try:
            data = pickle.dumps(replace(portable, explain_refusal=None))
        except Exception:
            raise ToolError("internal_error", f"{spec.name} cannot run in a worker process: its function is not "
                            "a module-level function (the call supervisor sends it by name)") from None
    with _PORTABLE_LOCK:
        if len(_PORTABLE) > 256:
            _PORTABLE.clear()
        _PORTABLE[id(spec)] = (spec, data)
    return data


def _call_request(spec: ToolSpec, arguments: JSONObject, context: ToolContext, limit: int,
                  budget: CallBudget) -> Any:
    from statekit.tools.worker import CallRequest

    plain = {item.name: getattr(context, item.name) for item in fields(context) if item.name not in HOST_ONLY_CONTEXT}
    return CallRequest(_tool_reference(spec), arguments, plain, limit, _limits(budget, context.call_memory))

