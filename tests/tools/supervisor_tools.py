"""Hostile test-only tools for the call supervisor: each does one thing no budget check stops.

Module-level functions, so a supervised call sends them to a worker by name. Each tool that
runs long writes its process id to `pidFile` first, so a test can watch that process die.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from statekit.budget import report_progress
from statekit.tools.registry import ToolContext, ToolSpec

_OPEN: dict[str, Any] = {"type": "object"}


def _note_pid(arguments: dict[str, Any]) -> None:
    if "pidFile" in arguments:
        Path(arguments["pidFile"]).write_text(str(os.getpid()))


def hog(arguments: dict[str, Any]) -> dict[str, Any]:
    """Allocates a mebibyte at a time, for ever."""
    _note_pid(arguments)
    chunks = []
    while True:
        chunks.append(bytearray(1024 * 1024))


def hog_and_swallow(arguments: dict[str, Any]) -> dict[str, Any]:
    """Allocates until it fails, then hides the failure behind a normal answer."""
    chunks = []
    try:
        while True:
            chunks.append(bytearray(1024 * 1024))
    except Exception:
        chunks.clear()
        return {"allocated": "all it could"}


def spin(arguments: dict[str, Any]) -> dict[str, Any]:
    """Burns CPU and never checks its budget."""
    _note_pid(arguments)
    while True:
        pass


def pid(arguments: dict[str, Any]) -> dict[str, Any]:
    """Where the call ran."""
    return {"pid": os.getpid()}


def until_reniced(arguments: dict[str, Any]) -> dict[str, Any]:
    """Runs (sleeping, not burning CPU) until its process's priority was lowered, or 30 s; says
    where it ran and at what nice value it finished."""
    import time

    for _ in range(600):
        if os.getpriority(os.PRIO_PROCESS, 0) > 0:
            break
        time.sleep(0.05)
    return {"pid": os.getpid(), "nice": os.getpriority(os.PRIO_PROCESS, 0), "group": _autogroup("self")}


def _autogroup(pid: str) -> str | None:
    """This process's scheduling group (`/autogroup-N nice K`), None where there are none."""
    try:
        return Path(f"/proc/{pid}/autogroup").read_text().strip()
    except OSError:
        return None


def big(arguments: dict[str, Any]) -> dict[str, Any]:
    return {"text": "x" * int(arguments.get("size", 1000))}


def counting(arguments: dict[str, Any]) -> dict[str, Any]:
    import time

    for step in range(1, 4):
        report_progress(step, 3, f"step {step}")
        time.sleep(0.3)
    return {"done": True}


def host_pid(arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    """A host-side tool: it runs where the store is; its work goes through `context.compute`."""
    return {"host": os.getpid(), "work": context.compute(worker_pid)}


def worker_pid() -> int:
    return os.getpid()


def _tool(function: Any, **extra: Any) -> ToolSpec:
    return ToolSpec(name=f"test_{function.__name__}", title=function.__name__, description=function.__doc__ or "",
                    input_schema=_OPEN, output_schema=_OPEN, function=function, **extra)


HOG = _tool(hog)
HOG_AND_SWALLOW = _tool(hog_and_swallow)
SPIN = _tool(spin)
PID = _tool(pid)
UNTIL_RENICED = _tool(until_reniced)
BIG = _tool(big)
COUNTING = _tool(counting)
HOST_PID = _tool(host_pid, takes_context=True, host_side=True)


class PidRecorder:
    """Wraps a tool's function: appends `name pid` to `path` each time it runs, then runs it."""

    def __init__(self, name: str, function: Any, takes_context: bool, path: str) -> None:
        self.name, self.function, self.takes_context, self.path = name, function, takes_context, path

    def __call__(self, arguments: dict[str, Any], context: ToolContext | None = None) -> dict[str, Any]:
        with open(self.path, "a", encoding="utf-8") as log:
            log.write(f"{self.name} {os.getpid()}\n")
        result: dict[str, Any] = (self.function(arguments, context) if self.takes_context
                                  else self.function(arguments))
        return result
