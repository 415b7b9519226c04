"""Finding and reading the machines of a workspace.

Machine ids are `<path relative to the root>` for a file holding one machine and
`<path>#<n>` (1-based) for the n-th machine of a file holding several: stable as long as the
files are. Nothing is read outside the root: `..`, absolute paths and symlinks that lead out
are refused, and `node_modules`, `.git` and git-ignored files are skipped. No program is ever
run (the ignore rules are matched in-process, see `ignore`), only regular files are opened,
and every path in a result is relative to the root.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from statekit.errors import ToolError
from statekit.workspace.files import (
    FileTooLarge,
    NotARegularFile,
    OutsideRoot,
    inside,
    read_regular_file,
)
from statekit.workspace.ignore import IgnoreRules

if TYPE_CHECKING:
    from statekit.formats import Source

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


@dataclass
class Skipped:
    """Candidate files that were not read, each with the reason (`{file, code, message}`)."""

    entries: list[dict[str, Any]] = field(default_factory=list)

    def add(self, file: str, code: str, message: str) -> None:
        self.entries.append({"file": file, "code": code, "message": message})


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
        if not inside(self.root, candidate):
            raise ToolError("invalid_input", "that path leads outside the workspace root")
        return candidate

    # -- listing --------------------------------------------------------------------------

    def candidate_files(self) -> list[str]:
        """Relative paths of files that may hold machines, sorted, leaving out ignored ones."""
        rules = self._rules()
        found: list[str] = []
        for directory, subdirectories, files in os.walk(self.root, followlinks=False):
            base = Path(directory).relative_to(self.root).as_posix()
            prefix = "" if base == "." else base + "/"
            subdirectories[:] = sorted(
                d for d in subdirectories
                if d not in SKIPPED_DIRECTORIES and not rules.is_ignored(prefix + d, is_directory=True))
            for name in sorted(files):
                if Path(name).suffix.lower() not in SUFFIX_FORMATS:
                    continue
                path = Path(directory, name)
                if path.is_symlink() and not inside(self.root, path.resolve()):
                    continue
                if rules.is_ignored(prefix + name, is_directory=False):
                    continue
                found.append(prefix + name)
                if len(found) > MAX_FILES:
                    raise ToolError("input_too_large", f"the workspace holds more than {MAX_FILES} candidate files")
        return sorted(found)

    def _rules(self) -> IgnoreRules:
        return IgnoreRules(self.root)

    def machines(self, skipped: Skipped | None = None) -> Iterator[tuple[WorkspaceMachine, Any]]:
        """Every machine: its summary and its model (files that hold none are left out).

        Files that could not be read (too large, not a regular file) go to `skipped`.
        """
        for relative in self.candidate_files():
            try:
                yield from self._machines_in(relative)
            except ToolError as error:
                if skipped is not None:
                    skipped.add(relative, error.code, error.message)

    def _machines_in(self, relative: str) -> Iterator[tuple[WorkspaceMachine, Any]]:
        path = self.resolve_inside(relative)
        format_name = SUFFIX_FORMATS[path.suffix.lower()]
        if not _registered(format_name):
            return
        try:
            text = read_regular_file(path, MAX_FILE_BYTES, root=self.root).decode("utf-8")
        except FileTooLarge as error:
            raise ToolError(
                "input_too_large",
                f"{relative} is {error.size} bytes, over the {MAX_FILE_BYTES}-byte limit for workspace files",
                {"limit": MAX_FILE_BYTES, "size": error.size}) from None
        except NotARegularFile:
            raise ToolError("invalid_input", f"{relative} is not a regular file (never opened)") from None
        except OutsideRoot:
            raise ToolError("invalid_input", "that path leads outside the workspace root") from None
        except (OSError, UnicodeDecodeError):
            return  # unreadable or not text: holds no machine we can read
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
        relative = Path(relative).as_posix()
        if path.suffix.lower() not in SUFFIX_FORMATS or not path.exists():
            raise ToolError("not_found", f"no machine file {relative!r} in the workspace")
        if set(Path(relative).parts) & SKIPPED_DIRECTORIES or self._rules().is_ignored_anywhere(relative):
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
    source = formats.Source.of(text)  # parsed once, for the check below and the reader
    if format_name == "xstate" and not _looks_like_machine(source):
        return  # package.json, tsconfig.json, CI YAML...: data files, not machines
    try:
        outcome = formats.read_any(source, format_name)
    except ToolError:
        return
    yield outcome.model, None


_MACHINE_KEYS = frozenset({"states", "initial", "on", "always", "invoke", "after"})


def _looks_like_machine(source: Source) -> bool:
    try:
        data = source.document
    except ToolError:
        return False
    if isinstance(data, dict) and set(data) == {"machine"}:
        data = data["machine"]
    return isinstance(data, dict) and bool(_MACHINE_KEYS & set(data))
