"""Test-only tools for the server tests: each one exercises one path of the call pipeline.

They live in tests only. `install()` adds them to the registry for the stdio subprocess
launcher; the pytest fixture uses `DEMO_TOOLS` with monkeypatch so they vanish after a test.
"""

from __future__ import annotations

from typing import Any

from statekit.errors import ToolError
from statekit.tools import registry
from statekit.tools.registry import ToolAnnotations, ToolSpec

SECRET_MARKER = "SECRET-SOURCE-4f1c"

_TEXT_IN = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "repeat": {"type": "integer", "minimum": 1, "maximum": 5},
    },
    "required": ["text"],
    "additionalProperties": False,
}
_TEXT_OUT = {
    "type": "object",
    "properties": {"text": {"type": "string"}, "length": {"type": "integer"}},
    "required": ["text", "length"],
    "additionalProperties": False,
}


def _echo(arguments: dict[str, Any]) -> dict[str, Any]:
    text = arguments["text"] * arguments.get("repeat", 1)
    return {"text": text, "length": len(text)}


def _refuse(arguments: dict[str, Any]) -> dict[str, Any]:
    raise ToolError(
        "verification_unavailable", "no verification adapter is configured", {"retryable": False}
    )


def _crash(arguments: dict[str, Any]) -> dict[str, Any]:
    raise RuntimeError(f"boom with {arguments['text']}")


def _break_schema(arguments: dict[str, Any]) -> dict[str, Any]:
    return {"text": arguments["text"], "length": "not a number"}


def _summarized_echo(arguments: dict[str, Any]) -> dict[str, Any]:
    return _echo(arguments)


DEMO_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="demo_echo",
        title="Echo text",
        description="Returns the text it was given, repeated.",
        input_schema=_TEXT_IN,
        output_schema=_TEXT_OUT,
        function=_echo,
    ),
    ToolSpec(
        name="demo_summarized",
        title="Echo with a summary",
        description="Like demo_echo, with a short text summary.",
        input_schema=_TEXT_IN,
        output_schema=_TEXT_OUT,
        function=_summarized_echo,
        summarize=lambda result: f"echoed {result['length']} characters",
    ),
    ToolSpec(
        name="demo_refuse",
        title="Always refuses",
        description="Raises a ToolError with a stable code.",
        input_schema=_TEXT_IN,
        output_schema=_TEXT_OUT,
        function=_refuse,
        annotations=ToolAnnotations(open_world=True),
    ),
    ToolSpec(
        name="demo_crash",
        title="Always crashes",
        description="Raises an unexpected exception that mentions its input.",
        input_schema=_TEXT_IN,
        output_schema=_TEXT_OUT,
        function=_crash,
    ),
    ToolSpec(
        name="demo_bad_output",
        title="Breaks its output schema",
        description="Returns a result that does not match its output schema.",
        input_schema=_TEXT_IN,
        output_schema=_TEXT_OUT,
        function=_break_schema,
    ),
)
DEMO_NAMES = tuple(spec.name for spec in DEMO_TOOLS)


def install() -> None:
    """Register the demo tools for the rest of this process (subprocess launchers only)."""
    registry.tools()
    for spec in DEMO_TOOLS:
        registry.register(spec)
