"""The JavaScript sandbox for inline machine code: QuickJS (quickjs-ng), no host access.

Why QuickJS: it has no I/O of any kind (no fs, network, timers, require, process), a
per-call time limit, a memory limit and a stack limit, and a call costs microseconds; V8
through mini-racer is 300x dearer per call, 80 MB larger and exposes more host API (see the
project's research notes on sandboxes). Data crosses the boundary as JSON only: functions
receive `{context, event, ...}` and `params` parsed from JSON and return a JSON value.

A context is single-threaded; each `JsSandbox` belongs to one simulation run, and every
context lives on one worker thread with a large C stack (see `WORKER_STACK_SIZE`).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from statekit.errors import EngineError

DEFAULT_TIME_LIMIT = 0.5  # seconds per call
DEFAULT_TOTAL_TIME_LIMIT = 10.0  # seconds for all calls of one sandbox (one simulation run)
DEFAULT_MEMORY_LIMIT = 32 * 1024 * 1024
DEFAULT_STACK_LIMIT = 512 * 1024
MAX_SOURCE_CHARS = 100_000
#: The C stack of the thread that runs QuickJS. QuickJS checks its own stack limit, but a
#: thread whose stack is smaller than that limit (musl's default is 128 KB; a server may set
#: less) overflows the C stack first and the process dies with SIGSEGV. A sandbox first used
#: on the main thread with a large stack (`ulimit -s`) runs there; any other runs on one
#: worker thread with a stack far above the limit (a thread hop costs some 80 us a call).
WORKER_STACK_SIZE = 16 * 1024 * 1024
_MAIN_THREAD_STACK_NEEDED = 4 * 1024 * 1024
_ON_WORKER = -1

_worker: ThreadPoolExecutor | None = None
_worker_pid = 0
_worker_lock = threading.Lock()


def _js_thread() -> ThreadPoolExecutor:
    """The single worker thread that owns every QuickJS runtime (created in this process)."""
    global _worker, _worker_pid
    with _worker_lock:
        if _worker is None or _worker_pid != os.getpid():  # a forked child has no such thread
            previous = threading.stack_size()
            try:
                threading.stack_size(WORKER_STACK_SIZE)
                worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="statekit-js")
                worker.submit(lambda: None).result()  # start the thread while the size holds
            finally:
                threading.stack_size(previous)
            _worker, _worker_pid = worker, os.getpid()
        return _worker


def _main_thread_stack_is_large() -> bool:
    try:
        import resource
    except ImportError:  # pragma: no cover - not on POSIX
        return False
    soft, _ = resource.getrlimit(resource.RLIMIT_STACK)
    return bool(soft == resource.RLIM_INFINITY or soft >= _MAIN_THREAD_STACK_NEEDED)

# Compiles each source once, then calls it with JSON-parsed arguments. `undefined` results
# travel as the string "undefined" because JSON has no such value. The compiled-function cache
# and the JSON and Function constructors are captured in a closure, so inline code that rewrites
# globals (`JSON.stringify = ...`, `globalThis.__fns = ...`) cannot change what other inline
# functions of the same run receive or return.
_PRELUDE = """
(function () {
  const fns = Object.create(null);
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const FunctionConstructor = Function;
  // The source must be one expression: compiled (not run) inside brackets, a `)` that would
  // close the parenthesis below early is a syntax error, so no statement runs at compile time.
  const compile = function (source) {
    new FunctionConstructor("return [" + source + "\\n];");
    return new FunctionConstructor("return (" + source + "\\n);")();
  };
  globalThis.__call = function (source, argsJson, paramsJson) {
    let fn = fns[source];
    if (fn === undefined) {
      fn = compile(source);
      if (typeof fn !== "function") throw new TypeError("inline code is not a function");
      fns[source] = fn;
    }
    const params = paramsJson === "undefined" ? undefined : parse(paramsJson);
    const result = fn(parse(argsJson), params);
    return result === undefined ? "undefined" : stringify(result);
  };
})();
"""


class JsSandbox:
    """A `CodeEvaluator` that runs inline JavaScript in QuickJS with limits."""

    def __init__(self, *, time_limit: float = DEFAULT_TIME_LIMIT, memory_limit: int = DEFAULT_MEMORY_LIMIT,
                 stack_limit: int = DEFAULT_STACK_LIMIT, total_time_limit: float = DEFAULT_TOTAL_TIME_LIMIT) -> None:
        self.time_limit = time_limit
        self.total_time_limit = total_time_limit
        self._spent = 0.0
        self.memory_limit = memory_limit
        self.stack_limit = stack_limit
        self._call: Any = None
        #: The thread the context lives on: a thread id, or _ON_WORKER; None before the first call.
        self._owner: int | None = None

    def _function(self) -> Any:
        if self._call is None:
            try:
                import quickjs
            except ImportError:  # pragma: no cover - a dependency of the package
                raise EngineError("the JavaScript sandbox (quickjs-ng) is not installed") from None
            context = quickjs.Context()
            context.set_memory_limit(self.memory_limit)
            context.set_max_stack_size(self.stack_limit)
            context.set_time_limit(self.time_limit)
            context.eval(_PRELUDE)
            self._call = context.get("__call")
        return self._call

    def _run(self, code: str, args_json: str, params_json: str, where: str) -> Any:
        """One call, on the QuickJS worker thread."""
        if self._spent > self.total_time_limit:
            # Each call is limited, and so is their sum: an `always` loop of cheap calls ends too.
            raise EngineError(f"inline code{_at(where)} was not run: this run's inline code used up its "
                              f"{self.total_time_limit:g} s budget")
        call = self._function()
        started = time.monotonic()
        try:
            return call(code, args_json, params_json)
        except Exception as error:  # quickjs.JSException, StackOverflow
            self._call = None  # a context that ran out of memory or time is not reused
            raise EngineError(f"inline code{_at(where)} failed: {_describe(error)}") from None
        finally:
            self._spent += time.monotonic() - started

    def evaluate(self, code: str, args: Mapping[str, Any], params: Any, *, where: str = "") -> Any:
        """Run `code` (a function expression) on `args` and `params`; JSON in, JSON out."""
        if len(code) > MAX_SOURCE_CHARS:
            raise EngineError(f"inline code{_at(where)} is longer than {MAX_SOURCE_CHARS} characters")
        try:
            # allow_nan=False: NaN and Infinity are not JSON (JSON.parse would refuse them later).
            args_json = json.dumps(args, ensure_ascii=False, allow_nan=False)
            params_json = "undefined" if params is None else json.dumps(params, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError):
            raise EngineError(f"inline code{_at(where)} can only receive JSON data") from None
        here = threading.get_ident()
        if self._owner is None:
            on_main = threading.current_thread() is threading.main_thread()
            self._owner = here if on_main and _main_thread_stack_is_large() else _ON_WORKER
        elif self._owner not in (here, _ON_WORKER):
            # A QuickJS runtime must stay on one thread: move to the worker with a new context.
            self._owner, self._call = _ON_WORKER, None
        if self._owner == here:
            result = self._run(code, args_json, params_json, where)
        else:
            result = _js_thread().submit(self._run, code, args_json, params_json, where).result()
        if result == "undefined":
            return None
        if not isinstance(result, str):
            raise EngineError(f"inline code{_at(where)} returned a value that is not JSON")
        return json.loads(result)


def _at(where: str) -> str:
    return f" in {where}" if where else ""


def _describe(error: Exception) -> str:
    """The first line of a QuickJS error, in plain words for the three limits."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    if "interrupted" in text:
        return f"it ran longer than the time limit ({text})"
    if "out of memory" in text:
        return f"it exceeded the memory limit ({text})"
    if "call stack" in text or type(error).__name__ == "StackOverflow":
        return f"it exceeded the stack limit ({text})"
    return text
