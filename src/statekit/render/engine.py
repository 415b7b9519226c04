"""Finding and running the layout engine: `graphviz-pure` from its wheel, else system `dot`.

graphviz-pure (a Rust port of Graphviz 16.1 in a PyPI wheel) comes first: it installs with pip
alone, ships its own fonts, and so draws the same pixels on every machine. A system Graphviz
`dot` is used when present and graphviz-pure is not. `STATEKIT_GRAPHVIZ` names another
dot-compatible binary, or `none` to switch drawing off (what a host without either sees).
See docs/render.md for why this engine was chosen.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from statekit.budget import (
    BudgetStop,
    cancelled_error,
    current_budget,
    seconds_left,
    time_limit_error,
)

ENGINE_VARIABLE = "STATEKIT_GRAPHVIZ"
#: A drawing that takes longer than this is abandoned (the caller reports it unavailable).
DEFAULT_TIMEOUT_SECONDS = 60.0


#: Seconds between two looks at the call budget while the engine runs.
_POLL_SECONDS = 0.1


class RenderUnavailable(Exception):
    """Drawing is not possible here (no engine) or failed for this input; the message says why."""


@dataclass(frozen=True)
class LayoutEngine:
    name: str
    path: str
    #: True when the engine ships its own fonts (PNG text renders without system fonts).
    bundled_fonts: bool


def _scripts_dirs() -> list[Path]:
    # The wheel's binary sits next to the interpreter's scripts even when PATH lacks that folder.
    found = [Path(sysconfig.get_path("scripts")), Path(sys.executable).parent]
    return list(dict.fromkeys(found))


def find_engine() -> LayoutEngine | None:
    """The engine to use, or None when there is none (drawing is then unavailable)."""
    chosen = os.environ.get(ENGINE_VARIABLE, "").strip()
    if chosen.lower() == "none":
        return None
    if chosen:
        path = shutil.which(chosen)
        return LayoutEngine(Path(chosen).name, path, "graphviz-pure" in chosen) if path else None
    for folder in _scripts_dirs():
        candidate = folder / "graphviz-pure"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return LayoutEngine("graphviz-pure", str(candidate), True)
    pure = shutil.which("graphviz-pure")
    if pure:
        return LayoutEngine("graphviz-pure", pure, True)
    dot = shutil.which("dot")
    if dot:
        return LayoutEngine("dot", dot, False)
    return None


def run_engine(
    engine: LayoutEngine,
    dot_text: str,
    output_format: str,
    extra_args: tuple[str, ...] = (),
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
    *,
    allow_empty: bool = False,
) -> bytes:
    """Lay out and draw `dot_text` as `output_format` (`svg`, `png`); failures raise RenderUnavailable.

    Inside a tool call the engine process also obeys the call's budget: it is killed when the
    call runs out of time (`deadline_exceeded`) or is cancelled (`cancelled`).
    """
    budget = current_budget()
    left = seconds_left()
    limit = timeout if left is None else min(timeout, left)
    started = time.monotonic()
    try:
        process = subprocess.Popen(
            [engine.path, f"-T{output_format}", *extra_args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
    except OSError as error:
        raise RenderUnavailable(f"{engine.name} could not run: {error.strerror}") from None
    data: bytes | None = dot_text.encode("utf-8")
    with process:
        while True:
            try:
                stdout, stderr = process.communicate(input=data, timeout=_POLL_SECONDS)
                break
            except subprocess.TimeoutExpired:
                data = None  # sent already (a retry may not send it again, and loses no output)
                over = time.monotonic() - started > limit
                if not over and (budget is None or not budget.cancelled):
                    continue
                process.kill()
                process.communicate()
                if budget is not None and budget.expired():
                    raise BudgetStop(time_limit_error(budget.seconds)) from None
                if budget is not None and budget.cancelled:
                    raise BudgetStop(cancelled_error()) from None
                raise RenderUnavailable(f"{engine.name} took longer than {timeout:g} s") from None
    completed = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
    if completed.returncode != 0 or (not completed.stdout and not allow_empty):
        detail = completed.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = detail[-1][:200] if detail else f"exit status {completed.returncode}"
        raise RenderUnavailable(f"{engine.name} failed: {reason}")
    return completed.stdout


def run_engine_formats(
    engine: LayoutEngine,
    dot_text: str,
    output_formats: tuple[str, ...],
    extra_args: tuple[str, ...] = (),
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
) -> dict[str, bytes]:
    """One engine run writing several formats (e.g. the PNG and the JSON of one layout)."""
    with tempfile.TemporaryDirectory(prefix="statekit-render-") as folder:
        paths = [Path(folder) / f"{index}.{fmt}" for index, fmt in enumerate(output_formats)]
        # `-T<format> -o<file>` pairs: each -o names the file of the -T before it
        arguments = [*extra_args, f"-o{paths[0]}"]
        for output_format, path in zip(output_formats[1:], paths[1:], strict=True):
            arguments += [f"-T{output_format}", f"-o{path}"]
        run_engine(engine, dot_text, output_formats[0], tuple(arguments), timeout, allow_empty=True)
        result: dict[str, bytes] = {}
        for output_format, path in zip(output_formats, paths, strict=True):
            data = path.read_bytes() if path.is_file() else b""
            if not data:
                raise RenderUnavailable(f"{engine.name} wrote no {output_format}")
            result[output_format] = data
        return result
