"""`.gitignore` rules matched in-process, so reading a workspace never runs a program.

`git check-ignore` would run whatever the workspace's own `.git/config` names (a
`core.fsmonitor` hook, for one), and the workspace is untrusted input. The rules are
matched with `pathspec`'s gitignore implementation instead. The sources, lowest priority
first, are `.git/info/exclude` and then the `.gitignore` of every directory from the root
down; within and across them the last matching rule wins, as in git. `.git/config` (and so
`core.excludesFile`, which may point outside the workspace) is never read. A directory that
is ignored is never entered, so nothing below it can be re-included, as in git.
"""

from __future__ import annotations

from pathlib import Path

import pathspec

from statekit.workspace.files import read_regular_file

#: An ignore file larger than this is not a real one; it is not honoured (nothing is ignored by it).
MAX_IGNORE_FILE_BYTES = 256 * 1024


class IgnoreRules:
    """The ignore rules of one workspace root, loaded per directory on first use."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._specs: dict[str, pathspec.GitIgnoreSpec | None] = {}

    def is_ignored(self, relative: str, *, is_directory: bool) -> bool:
        """Whether the path `relative` (POSIX, relative to the root) is ignored by its rules."""
        parts = relative.strip("/").split("/")
        # (rules, the path relative to the rules' directory), lowest priority first
        levels = [(self._exclude_spec(), parts)]
        levels += [(self._directory_spec("/".join(parts[:depth])), parts[depth:]) for depth in range(len(parts))]
        decision: bool | None = None
        for spec, below in levels:
            if spec is None:
                continue
            result = spec.check_file("/".join(below) + ("/" if is_directory else ""))
            if result.include is not None:
                decision = result.include
        return bool(decision)

    def is_ignored_anywhere(self, relative: str) -> bool:
        """Whether `relative` or any directory it lies in is ignored (a file git would not see)."""
        parts = relative.strip("/").split("/")
        for i in range(1, len(parts)):
            if self.is_ignored("/".join(parts[:i]), is_directory=True):
                return True
        return self.is_ignored(relative, is_directory=False)

    def _directory_spec(self, base: str) -> pathspec.GitIgnoreSpec | None:
        if base not in self._specs:
            self._specs[base] = self._load(self._root / base / ".gitignore" if base else self._root / ".gitignore")
        return self._specs[base]

    def _exclude_spec(self) -> pathspec.GitIgnoreSpec | None:
        key = "\0exclude"
        if key not in self._specs:
            self._specs[key] = self._load(self._root / ".git" / "info" / "exclude")
        return self._specs[key]

    def _load(self, path: Path) -> pathspec.GitIgnoreSpec | None:
        try:
            data = read_regular_file(path, MAX_IGNORE_FILE_BYTES, root=self._root)
        except (OSError, ValueError):
            return None  # missing, not a regular file, outside the root, or too large
        text = data.decode("utf-8", errors="replace")
        return pathspec.GitIgnoreSpec.from_lines(text.splitlines())
