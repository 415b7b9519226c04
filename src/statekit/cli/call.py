"""`statekit call NAME JSON` and `statekit tools`: any tool, as the Python API and the server run it."""

from __future__ import annotations

import argparse
import json
from typing import Any

from statekit.errors import ToolError


def _cmd_call(args: argparse.Namespace) -> int:
    from statekit import tools

    try:
        arguments = json.loads(args.arguments) if args.arguments else {}
    except json.JSONDecodeError as error:
        raise ToolError("invalid_input", f"arguments are not valid JSON: {error.msg}") from None
    if not isinstance(arguments, dict):
        raise ToolError("invalid_input", "arguments must be a JSON object")
    result = tools.call(args.tool, arguments)
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


def _cmd_tools(args: argparse.Namespace) -> int:
    from statekit import tools

    for name, spec in sorted(tools.tools().items()):
        print(f"{name:32} {spec.title}")
    return 0


def add_commands(sub: Any) -> None:
    call = sub.add_parser("call", help="run a tool with JSON arguments and print its structured result")
    call.add_argument("tool")
    call.add_argument("arguments", nargs="?", default="{}")
    call.set_defaults(handler=_cmd_call)

    listing = sub.add_parser("tools", help="list the tools")
    listing.set_defaults(handler=_cmd_tools)
