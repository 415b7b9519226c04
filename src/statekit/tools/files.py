"""Reading the files the command-line forms of the tools take (`-` is standard input)."""

from __future__ import annotations

import sys
from pathlib import Path

from statekit.errors import ToolError


def read_source(path: str) -> str:
    """The UTF-8 text of `path`, or `invalid_input` saying why it cannot be read."""
    if path == "-":
        return sys.stdin.read()
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise ToolError("invalid_input", f"cannot read {path}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise ToolError("invalid_input", f"{path} is not UTF-8 text") from None
