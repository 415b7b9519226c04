"""The format-name arguments every tool shares (`from`, `to`): one set of names, one wording.

The names are the format registry's (`statekit.formats`): each format's canonical name followed
by its aliases (`xstate`, `xstate-json`, `json`, ..., `yaml`, `xstate-yaml`, ...), so every tool
accepts every spelling any tool ever accepted, and its schema lists them all.
"""

from __future__ import annotations

from typing import Any

from statekit.errors import ToolError
from statekit.formats import formats, get_format, readable_formats, writable_formats
from statekit.tools.registry import JSONObject, RefusalExplainer
from statekit.tools.schema_check import SchemaViolation


def format_names(names: list[str]) -> list[str]:
    """Format names, each followed by its aliases, for a schema's `enum`."""
    known = formats()
    result: list[str] = []
    for name in names:
        result.append(name)
        result.extend(known[name].aliases)
    return result


def readable_format_argument(description: str) -> JSONObject:
    """The schema of an argument naming the format a machine is read from."""
    return {"type": "string", "enum": format_names(readable_formats()), "description": description}


def writable_format_argument(description: str, **extra: Any) -> JSONObject:
    """The schema of an argument naming the format a machine is written in."""
    return {"type": "string", "enum": format_names(writable_formats()), "description": description, **extra}


def explain_format_refusal(*, readable: tuple[str, ...] = (), writable: tuple[str, ...] = ()) -> RefusalExplainer:
    """A `ToolSpec.explain_refusal` that words refusals of the named format arguments as the
    format registry does ("unknown format 'bpmn'; known formats: ...", "format 'digraph' cannot
    be written; writable formats: ...") instead of listing the whole enum."""

    def explain(arguments: JSONObject, violation: SchemaViolation) -> str | None:
        name = violation.pointer[1:]
        if name not in readable and name not in writable:
            return None
        value = arguments.get(name)
        if not isinstance(value, str):
            return f"`{name}` must be a format name such as 'xstate', 'yaml' or 'scxml'"
        try:
            spec = get_format(value)
        except ToolError as error:
            return error.message
        if name in writable and spec.write is None:
            return f"format {spec.name!r} cannot be written; writable formats: {', '.join(writable_formats())}"
        if name in readable and spec.read is None:
            return f"format {spec.name!r} cannot be read; readable formats: {', '.join(readable_formats())}"
        if value != value.lower():
            return f"format names are lower case: use {value.lower()!r}"
        return None

    return explain


def listed_format_argument(full: JSONObject) -> JSONObject:
    """The listed schema of a format-name argument whose complete schema (`full`, every alias in
    its enum) goes to `ToolSpec.argument_schemas`: the canonical names in words, aliases implied."""
    canonical = [name for name in full["enum"] if name in formats()]
    return {"type": "string", "description": f"{full['description']} One of {', '.join(canonical)} (or an alias)."}
