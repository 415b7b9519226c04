"""Reading what the command-line forms of the tools take: files (`-` is standard input) and values."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from statekit.errors import ToolError


def read_source(path: str) -> str:
    """The UTF-8 text of `path`, or `invalid_input` saying why it cannot be read.

    A `.json` file must be JSON: the tools read machine text as JSON or else YAML, and YAML
    accepts what JSON refuses (a trailing comma), so a broken JSON file would load silently.
    """
    if path == "-":
        return sys.stdin.read()
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise ToolError("invalid_input", f"cannot read {path}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise ToolError("invalid_input", f"{path} is not UTF-8 text") from None
    if path.lower().endswith(".json") and text.strip():
        parse_json(text, path)
    return text


def parse_json(text: str, what: str) -> Any:
    """`text` as JSON, or `invalid_input` naming `what` and where the JSON went wrong (line, column).

    Every JSON value the command line takes is parsed here, so every such error says where.
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ToolError(
            "invalid_input", f"{what}: not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}"
        ) from None


def json_or_text(text: str, what: str) -> Any:
    """A command-line value: a JSON object, or else the text itself (an event type, a state path)."""
    if text.lstrip().startswith("{"):
        return parse_json(text, f"{what} {text!r}")
    return text


def guard_results(items: list[str]) -> dict[str, bool]:
    """`--guard NAME=true|false` options (repeatable) as the `guards` argument of a tool."""
    guards: dict[str, bool] = {}
    for item in items:
        name, _, value = item.partition("=")
        if value not in ("true", "false"):
            raise ToolError("invalid_input", f"--guard takes NAME=true or NAME=false, not {item!r}")
        guards[name] = value == "true"
    return guards
