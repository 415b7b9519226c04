"""`statekit call NAME ARGUMENTS` and `statekit tools`: any tool, as the Python API and the server run it.

ARGUMENTS is a JSON object inline, `-` (read from standard input) or `@FILE` (read from a file),
so a TypeScript file goes to a tool without pasting it into a JSON string by hand.
`statekit call NAME --help` describes the tool's arguments from its input schema (the one
the server lists), so the help cannot drift from what the call accepts.
"""

from __future__ import annotations

import argparse
import json
import textwrap
from typing import Any

from statekit.cli._input import parse_json, read_source
from statekit.errors import ToolError


def read_arguments(text: str) -> dict[str, Any]:
    """The tool arguments `call` was given: inline JSON, `-` (stdin) or `@FILE`."""
    if text == "-":
        source, what = read_source("-"), "arguments on standard input"
    elif text.startswith("@"):
        source, what = read_source(text[1:]), f"arguments in {text[1:]}"
    else:
        source, what = text, "arguments"
    arguments = parse_json(source, what) if source.strip() else {}
    if not isinstance(arguments, dict):
        raise ToolError("invalid_input", "arguments must be a JSON object")
    return arguments


def _cmd_call(args: argparse.Namespace) -> int:
    from statekit import tools

    if args.tool is None:
        if args.help:
            args.call_parser.print_help()
            return 0
        args.call_parser.error("NAME is required (statekit tools lists them)")
    if args.help:
        print(tool_help(tools.get(args.tool)))
        return 0
    arguments = read_arguments(args.arguments)
    context = None
    if args.verify_driver:
        from statekit.tools.registry import ToolContext
        from statekit.verify.python_adapter import adapter_from_options

        try:
            adapter = adapter_from_options(args.verify_driver, args.verify_path)
        except ValueError as exc:
            args.call_parser.error(str(exc))
        context = ToolContext.from_environment(verification_adapter=adapter)
    result = tools.call(args.tool, arguments, context=context)
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


def _cmd_tools(args: argparse.Namespace) -> int:
    from statekit import tools

    for name, spec in sorted(tools.tools().items()):
        print(f"{name:32} {spec.title}")
    return 0


def tool_help(spec: Any) -> str:
    """A tool's usage and arguments, read from its input schema."""
    schema: dict[str, Any] = spec.input_schema
    required = set(schema.get("required", ()))
    lines = [f"usage: statekit call {spec.name} '{{JSON}}' | - | @FILE", "", f"{spec.title}.", ""]
    lines += textwrap.wrap(" ".join(spec.description.split()), 100)
    lines += ["", "arguments (a JSON object):"]
    properties: dict[str, Any] = schema.get("properties", {})
    if not properties:
        lines.append("  (none)")
    for name, prop in properties.items():
        # An argument whose complete schema is not listed (every format alias, every patch
        # operation) is typed from the complete one, and described by the listed one.
        complete = spec.argument_schemas.get(name)
        resolved = dict(complete) if complete is not None else _resolve(schema, prop)
        mark = "required" if name in required else "optional"
        lines += textwrap.wrap(f"{name} ({_type_of(schema, resolved)}, {mark})", 98, initial_indent="  ",
                               subsequent_indent="      ")
        description = prop.get("description") or resolved.get("description")
        if description:
            lines += textwrap.wrap(" ".join(str(description).split()), 96, initial_indent="    ",
                                   subsequent_indent="    ")
    return "\n".join(lines)


def _resolve(root: dict[str, Any], node: Any) -> dict[str, Any]:
    """`node` with a local `$ref` (`#/$defs/...`) followed, as shared definitions are written."""
    seen = 0
    while isinstance(node, dict) and isinstance(node.get("$ref"), str) and node["$ref"].startswith("#/") and seen < 10:
        target: Any = root
        for part in node["$ref"][2:].split("/"):
            target = target.get(part, {}) if isinstance(target, dict) else {}
        node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        seen += 1
    return node if isinstance(node, dict) else {}


def _type_of(root: dict[str, Any], node: dict[str, Any]) -> str:
    if "enum" in node:
        return "one of " + ", ".join(json.dumps(value) for value in node["enum"])
    if "const" in node:
        return json.dumps(node["const"])
    for key in ("anyOf", "oneOf"):
        if key in node:
            return " or ".join(dict.fromkeys(_type_of(root, _resolve(root, each)) for each in node[key]))
    kind = node.get("type")
    if isinstance(kind, list):
        return " or ".join(map(str, kind))
    if kind == "array":
        items = _resolve(root, node.get("items", {}))
        return f"array of {_type_of(root, items)}" if items else "array"
    return str(kind) if kind else "any JSON value"


def add_commands(sub: Any) -> None:
    call = sub.add_parser(
        "call", add_help=False, help="run a tool with JSON arguments and print its structured result",
        description="Run a tool. ARGUMENTS: a JSON object, - (read it from stdin) or @FILE (read it from FILE). "
        "`statekit call NAME --help` describes a tool's arguments; `statekit tools` lists the tools.")
    call.add_argument("-h", "--help", action="store_true", help="show this help, or with NAME that tool's arguments")
    call.add_argument("tool", nargs="?", metavar="NAME")
    call.add_argument("arguments", nargs="?", default="{}", metavar="ARGUMENTS",
                      help="a JSON object, - for stdin, or @FILE (default {})")
    call.add_argument("--verify-driver", action="append", default=[], metavar="NAME=MODULE",
                      help="for `verify`: a Python driver module for the system under test (repeatable), "
                      "as `statekit serve --verify-driver`")
    call.add_argument("--verify-path", action="append", default=[], metavar="DIR",
                      help="for `verify`: a folder the drivers (and the system under test) import from")
    call.set_defaults(handler=_cmd_call, call_parser=call)

    listing = sub.add_parser("tools", help="list the tools")
    listing.set_defaults(handler=_cmd_tools)

