"""The `statekit` command: a thin adapter over the tool registry (and the server).

One module per command family in this package; each defines `add_commands(subparsers)` and
handlers that parse the command line into tool arguments, call `statekit.tools.call` (the one
pipeline every face runs) and print. Adding a command family is adding one module here: the
parser finds every module (but those starting with `_`, shared helpers) by itself.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from statekit.budget import DEFAULT_CALL_SECONDS, BudgetStop, CallBudget, running
from statekit.errors import ToolError

#: Commands that serve until stopped: they have no call budget of their own (each served
#: call has one).
_SERVING_COMMANDS = frozenset({"serve", "studio", "canary"})


def command_families() -> list[str]:
    """The modules of this package that add commands, by name."""
    return sorted(info.name for info in pkgutil.iter_modules(__path__) if not info.name.startswith("_"))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="statekit", description="Statecharts for AI agents: tools, engine and MCP server.")
    parser.add_argument("--version", action="version", version=f"statekit {_version()}")
    parser.add_argument(
        "--timeout", type=float, default=None, metavar="SECONDS",
        help=f"time budget of the command's work (default $STATEKIT_CALL_TIMEOUT or {DEFAULT_CALL_SECONDS:g})")
    parser.add_argument(
        "--call-memory", type=_byte_size, default=None, metavar="SIZE",
        help="memory each tool call of the command may use (512M, 1G); past it the call stops with "
        "resource_exhausted (default $STATEKIT_CALL_MEMORY or 1G)")
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress bar on stderr (it shows only when stderr is a terminal)")
    sub = parser.add_subparsers(dest="command", required=True)
    for family in command_families():
        importlib.import_module(f"{__name__}.{family}").add_commands(sub)
    return parser


def _version() -> str:
    """The installed distribution's version (the package's own when run from a source tree)."""
    import importlib.metadata

    import statekit

    try:
        return importlib.metadata.version("statekit")
    except importlib.metadata.PackageNotFoundError:
        return str(statekit.__version__)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _run(argv)
    except ModuleNotFoundError as error:
        if (error.name or "statekit").partition(".")[0] == "statekit":
            raise
        # Every command's packages come with the install but the Redis client (ARCHITECTURE.md, "Installs").
        fix = "pip install 'statekit[redis]'" if error.name == "redis" else "pip install statekit (reinstall it)"
        print(f"error [invalid_input]: this needs the package {error.name!r}, which is not installed: {fix}",
              file=sys.stderr)
        return 2


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command in _SERVING_COMMANDS:
            code: int = args.handler(args)
            return code
        bar = ProgressBar(sys.stderr) if sys.stderr.isatty() and not args.no_progress else None
        budget = CallBudget(seconds=_command_seconds(args.timeout), max_output_bytes=None,
                            on_progress=bar.update if bar else None)
        try:
            # Every tool call the command makes shares this budget and runs in a supervised worker.
            with running(budget), supervised_calls(args.call_memory):
                code = args.handler(args)
        except BudgetStop as stop:
            raise stop.error from None
        finally:
            if bar is not None:
                bar.close()
        return code
    except ToolError as error:
        print(f"error [{error.code}]: {error.message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `statekit call ... | head`: the reader left; say nothing more
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0



@contextmanager
def supervised_calls(call_memory: int | None = None) -> Iterator[None]:
    """Inside the block every `statekit.tools.call` runs through a call supervisor, which bounds
    its time and memory (`statekit.tools.supervisor`), whichever command made it.

    A single-threaded command (the usual case) forks its one worker when it makes its first
    call: the fork costs milliseconds and the child has every module the command imported. A
    process with threads (the CLI run from a host) uses the process's shared pool instead (or,
    with `call_memory`, a pool of its own whose every call has that memory budget).
    """
    from statekit.tools import registry
    from statekit.tools.supervisor import Supervisor

    made: list[Supervisor] = []

    def supervisor() -> Supervisor:
        if not made:
            threaded = threading.active_count() > 1
            if threaded and call_memory is None:
                return Supervisor.shared()
            made.append(Supervisor(workers=1, start_method="forkserver" if threaded else "fork",
                                   call_memory=call_memory).start())
        return made[0]

    registry.supervise_calls(supervisor)
    try:
        yield
    finally:
        registry.supervise_calls(None)
        for each in made:
            each.close()


def _byte_size(text: str) -> int:
    from statekit.budget import parse_byte_size

    try:
        return parse_byte_size(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _command_seconds(flag: float | None) -> float:
    if flag is not None:
        if not flag > 0:
            raise ToolError("invalid_input", "--timeout must be a positive number of seconds")
        return flag
    text = os.environ.get("STATEKIT_CALL_TIMEOUT", "").strip()
    try:
        return float(text) if text and float(text) > 0 else DEFAULT_CALL_SECONDS
    except ValueError:
        return DEFAULT_CALL_SECONDS


class ProgressBar:
    """A one-line progress bar on a terminal, for long commands (paths, verify, render)."""

    WIDTH = 30

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.shown = False

    def update(self, done: float, total: float | None, message: str | None) -> None:
        if total:
            filled = min(self.WIDTH, int(self.WIDTH * done / total))
            line = f"[{'#' * filled}{'.' * (self.WIDTH - filled)}] {min(100, int(100 * done / total)):3d}%"
        else:
            line = f"[{int(done)}]"
        self.stream.write(f"\r\x1b[K{line} {message or ''}"[:200])
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


if __name__ == "__main__":
    sys.exit(main())
