"""Reading one workspace file safely: regular files only, inside the root, bounded in size.

A FIFO named `m.json` would block a reader forever and a character device named `m.json`
would be read until memory runs out, so the type is checked before the file is opened and
again on the open descriptor (the path may be swapped in between). The open is
non-blocking and never follows a symlink, and at most `limit + 1` bytes are ever read.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


class NotARegularFile(ValueError):
    """The path names a FIFO, device, socket or directory: never opened (or never read)."""


class FileTooLarge(ValueError):
    """The file is over the size limit; `size` is its size in bytes (at least `limit + 1`)."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"the file is {size} bytes, over the {limit}-byte limit")
        self.size = size
        self.limit = limit


class OutsideRoot(ValueError):
    """The path (after following symlinks) is not below the root."""


def inside(root: Path, real: Path) -> bool:
    """Whether the resolved path `real` is `root` or below it."""
    return real == root or root in real.parents


def read_regular_file(path: Path, limit: int, *, root: Path) -> bytes:
    """The bytes of the regular file at `path`, which must resolve inside `root`.

    Raises `OutsideRoot`, `NotARegularFile`, `FileTooLarge` or `OSError` (missing, unreadable).
    """
    real = path.resolve()
    if not inside(root, real):
        raise OutsideRoot(str(path))
    if not stat.S_ISREG(os.stat(real).st_mode):
        raise NotARegularFile(str(path))
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    descriptor = os.open(real, flags)
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise NotARegularFile(str(path))
        if status.st_size > limit:
            raise FileTooLarge(status.st_size, limit)
        chunks: list[bytes] = []
        remaining = limit + 1
        while remaining > 0:
            chunk = os.read(descriptor, min(remaining, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        data = b"".join(chunks)
    finally:
        os.close(descriptor)
    if len(data) > limit:  # the file grew after fstat
        raise FileTooLarge(len(data), limit)
    return data
