"""Finding and reading the machines of a workspace.

Machine ids are `<path relative to the root>` for a file holding one machine and
`<path>#<n>` (1-based) for the n-th machine of a file holding several: stable as long as the
files are. Nothing is read outside the root: `..`, absolute paths and symlinks that lead out
are refused, and `node_modules`, `.git` and git-ignored files are skipped.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from statekit.errors import ToolError

#: File suffix -> format name in `statekit.formats` (a file of an unregistered format is skipped).
SUFFIX_FORMATS = {
    ".json": "xstate",
    ".yaml": "xstate",
    ".yml": "xstate",
    ".scxml": "scxml",
    ".mmd": "mermaid",
    ".d2": "d2",
    ".ts": "xstate-ts",
    ".tsx": "xstate-ts",
    ".js": "xstate-ts",
    ".mjs": "xstate-ts",
}
SKIPPED_DIRECTORIES = frozenset({"node_modules", ".git", ".hg", ".svn", "__pycache__", ".venv"})
MAX_FILE_BYTES = 1024 * 1024
MAX_FILES = 5000


@dataclass(frozen=True)
class WorkspaceMachine:
    machine_id: str
    name: str
    file: str
    format: str
    index: int
    line: int | None = None

    def summary(self) -> dict[str, Any]:
        data: dict[str, Any] = {"machineId": self.machine_id, "name": self.name, "file": self.file, "format": self.format}
        if self.line is not None:
            data["line"] = self.line
        return data


class Workspace:
    """The machines below one root directory."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise ToolError("invalid_input", "the workspace root is not a directory")

    # -- safety ---------------------------------------------------------------------------

    def resolve_inside(self, relative: str) -> Path:
        """The real path of `relative`, or `invalid_input` when it would leave the root."""
        if not relative or "\x00" in relative or Path(relative).is_absolute():
            raise ToolError("invalid_input", "a workspace path must be relative to the workspace root")
        if any(part == ".." for part in Path(relative).parts):
            raise ToolError("invalid_input", "a workspace path may not contain '..'")
        candidate = (self.root / relative).resolve()
        if candidate != self.root and self.root not in candidate.parents:
            raise ToolError("invalid_input", "that path leads outside the workspace root")
        return candidate

    # -- listing --------------------------------------------------------------------------

    def candidate_files(self) -> list[str]:
        """Relative paths of files that may hold machines, sorted, ignoring what git ignores."""
        found: list[str] = []
        for directory, subdirectories, files in os.walk(self.root, followlinks=False):
            subdirectories[:] = sorted(d for d in subdirectories if d not in SKIPPED_DIRECTORIES)
            for name in sorted(files):
                if Path(name).suffix.lower() in SUFFIX_FORMATS:
                    path = Path(directory, name)
                    if path.is_symlink() and not self._inside(path):
                        continue
                    found.append(path.relative_to(self.root).as_posix())
                    if len(found) > MAX_FILES:
                        raise ToolError("input_too_large", f"the workspace holds more than {MAX_FILES} candidate files")
        return sorted(set(found) - self._git_ignored(found))

    def _inside(self, path: Path) -> bool:
        real = path.resolve()
        return real == self.root or self.root in real.parents

    def _git_ignored(self, paths: list[str]) -> set[str]:
        if not paths:
            return set()
        try:
            completed = subprocess.run(
                ["git", "check-ignore", "--stdin", "-z"], cwd=self.root, input="\0".join(paths) + "\0",
                capture_output=True, text=True, timeout=30, check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return set()
        if completed.returncode not in (0, 1):  # 128: not a git repository
            return set()
        return {p for p in completed.stdout.split("\0") if p}

    def machines(self) -> Iterator[tuple[WorkspaceMachine, Any]]:
        """Every machine: its summary and its model (files that hold none are skipped)."""
        for relative in self.candidate_files():
            yield from self._machines_in(relative)

    def _machines_in(self, relative: str) -> Iterator[tuple[WorkspaceMachine, Any]]:
        path = self.resolve_inside(relative)
        format_name = SUFFIX_FORMATS[path.suffix.lower()]
        if not _registered(format_name) or path.stat().st_size > MAX_FILE_BYTES:
            return
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return
        for index, (model, line) in enumerate(_read_all(text, format_name), start=1):
            yield WorkspaceMachine(
                machine_id=relative if index == 1 else f"{relative}#{index}",
                name=model.id, file=relative, format=format_name, index=index, line=line,
            ), model

    def get(self, machine_id: str) -> tuple[WorkspaceMachine, Any]:
        """The machine with `machine_id`, or `not_found`."""
        if not isinstance(machine_id, str):
            raise ToolError("invalid_input", "`machineId` must be a string")
        relative, _, index_text = machine_id.partition("#")
        path = self.resolve_inside(relative)
        if path.suffix.lower() not in SUFFIX_FORMATS or not path.is_file():
            raise ToolError("not_found", f"no machine file {relative!r} in the workspace")
        if relative in self._git_ignored([relative]) or set(Path(relative).parts) & SKIPPED_DIRECTORIES:
            raise ToolError("not_found", f"{relative!r} is ignored")
        for machine, model in self._machines_in(relative):
            if machine.machine_id == machine_id or (not index_text and machine.index == 1):
                return machine, model
        raise ToolError("not_found", f"no machine {machine_id!r} in the workspace")


def _registered(format_name: str) -> bool:
    from statekit import formats

    if format_name == "xstate-ts":
        return getattr(formats, "extract_models", None) is not None
    try:
        formats.get_format(format_name)
    except ToolError:
        return False
    return True


def _read_all(text: str, format_name: str) -> Iterator[tuple[Any, int | None]]:
    """The models in one file: several for source files, one (or none) otherwise."""
    from statekit import formats

    if format_name == "xstate-ts":
        extract = getattr(formats, "extract_models", None)
        if extract is None:
            return
        yield from extract(text)
        return
    if format_name == "xstate" and not _looks_like_machine(text):
        return  # package.json, tsconfig.json, CI YAML...: data files, not machines
    try:
        outcome = formats.read_any(text, format_name)
    except ToolError:
        return
    yield outcome.model, None


_MACHINE_KEYS = frozenset({"states", "initial", "on", "always", "invoke", "after"})


def _looks_like_machine(text: str) -> bool:
    from statekit.tools.inputs import load_text

    try:
        data = load_text(text)
    except ToolError:
        return False
    if isinstance(data, dict) and set(data) == {"machine"}:
        data = data["machine"]
    return isinstance(data, dict) and bool(_MACHINE_KEYS & set(data))
