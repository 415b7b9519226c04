"""How the call supervisor starts its worker processes: from a fork server, or by a plain fork.

A worker must start warm (every tool imported) and must not run anything of the parent's
`__main__` (multiprocessing's own `forkserver` and `spawn` import it again in each child,
which re-runs a script that builds a server at top level). So:

- `ForkServer` starts one fresh interpreter that imports the tools (`statekit.tools.worker.zygote`)
  and forks a worker each time it is sent a channel (a socket, passed with `SCM_RIGHTS`). It never
  starts a thread, so forking it is safe; a server process has threads and must not fork itself.
- `DirectFork` forks the calling process: for a single-threaded command about to make a call
  (the CLI), it costs a fork and no interpreter start.

Both give the worker's channel as a `multiprocessing.connection.Connection` and report how a
worker ended (`exit_code`: its exit status, or minus the signal that killed it).
"""

from __future__ import annotations

import json
import os
import socket
import struct
import subprocess
import sys
import threading
import time
from multiprocessing.connection import Connection
from typing import Protocol

_EXIT_RECORD = struct.Struct("<ii")
_SYS_PATH_VARIABLE = "STATEKIT_CALL_WORKER_SYS_PATH"
#: Exit codes kept for workers nobody asked about yet (a bound on a long-running server).
_MAX_EXITS_KEPT = 1024


class Launcher(Protocol):
    def spawn(self) -> Connection:
        """Start a worker; its channel (the worker says hello on it with its pid)."""

    def exit_code(self, pid: int, timeout: float) -> int | None:
        """How worker `pid` ended (minus the signal when killed), or None if not known in time."""

    def close(self) -> None:
        """Stop starting workers."""


class ForkServer:
    """A preloaded interpreter that forks workers on request (started on first use)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._control: socket.socket | None = None
        self._exits: dict[int, int] = {}
        self._exited = threading.Condition()

    def _running(self) -> socket.socket:
        with self._lock:
            if self._control is None or self._process is None or self._process.poll() is not None:
                ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
                # The workers import what this process can (its sys.path: a host's or a test's
                # own tool modules), handed over in the environment rather than shown by `ps`.
                code = ("import json, os, sys; sys.path[:] = json.loads(os.environ.pop(sys.argv[2])); "
                        "from statekit.tools.worker import zygote; zygote(int(sys.argv[1]))")
                environment = {**os.environ, _SYS_PATH_VARIABLE: json.dumps(sys.path)}
                # stdout goes to stderr: on a stdio server, stdout carries the protocol.
                self._process = subprocess.Popen(
                    [sys.executable, "-c", code, str(theirs.fileno()), _SYS_PATH_VARIABLE],
                    pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, stdout=2, env=environment,
                    close_fds=True)
                theirs.close()
                self._control = ours
                threading.Thread(target=self._read_exits, args=(ours,), name="statekit-forkserver-exits",
                                 daemon=True).start()
            return self._control

    def spawn(self) -> Connection:
        control = self._running()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            socket.send_fds(control, [b"S"], [theirs.fileno()])
        finally:
            theirs.close()
        return Connection(ours.detach())

    def _read_exits(self, control: socket.socket) -> None:
        while True:
            try:
                record = control.recv(64)
            except OSError:
                return
            if not record:
                return
            if record[:1] == b"X" and len(record) == 1 + _EXIT_RECORD.size:
                pid, code = _EXIT_RECORD.unpack(record[1:])
                with self._exited:
                    if len(self._exits) >= _MAX_EXITS_KEPT:
                        self._exits.clear()
                    self._exits[pid] = code
                    self._exited.notify_all()

    def exit_code(self, pid: int, timeout: float) -> int | None:
        with self._exited:
            self._exited.wait_for(lambda: pid in self._exits, timeout)
            return self._exits.pop(pid, None)

    def close(self) -> None:
        with self._lock:
            control, process = self._control, self._process
            self._control = self._process = None
        if control is not None:
            control.close()  # the fork server ends when its channel closes
        if process is not None:
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)


class DirectFork:
    """Forks this process for each worker (only for a single-threaded process)."""

    def spawn(self) -> Connection:
        from statekit.tools.worker import serve

        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        if os.fork() == 0:
            ours.close()
            code = 0
            try:
                serve(Connection(theirs.detach()), warm=False)  # this process is warm already
            except BaseException:  # pragma: no cover - a worker that fails says so on stderr
                import traceback

                traceback.print_exc()
                code = 1
            finally:
                os._exit(code)
        theirs.close()
        return Connection(ours.detach())

    def exit_code(self, pid: int, timeout: float) -> int | None:
        ends = time.monotonic() + timeout
        while True:
            try:
                found, status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                return None
            if found:
                return os.waitstatus_to_exitcode(status)
            if time.monotonic() >= ends:
                return None
            time.sleep(0.01)

    def close(self) -> None:
        return None


def read_status(path: str) -> dict[str, int]:
    """The `Vm*` lines of a `/proc/PID/status` file, in bytes (empty when it cannot be read)."""
    found: dict[str, int] = {}
    try:
        with open(path, encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Vm"):
                    name, _, rest = line.partition(":")
                    number = rest.split()
                    if number and number[0].isdigit():
                        found[name] = int(number[0]) * 1024
    except OSError:
        return {}
    return found


def launcher(start_method: str) -> Launcher:
    """`forkserver` (`ForkServer`) or `fork` (`DirectFork`)."""
    if start_method == "forkserver":
        return ForkServer()
    if start_method == "fork":
        return DirectFork()
    raise ValueError(f"start_method is 'forkserver' or 'fork', not {start_method!r}")
