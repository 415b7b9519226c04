"""`statekit check`: check_machine_properties on a machine file."""

from __future__ import annotations

import argparse
import json
from typing import Any

from statekit.analysis.properties import DEFAULT_MAX_STATES
from statekit.cli._input import guard_results, json_or_text, read_source
from statekit.errors import ToolError
from statekit.tools.property_tools import summarize

#: The fields a property written as words takes, in order: `precedes approved discharged`.
_WORD_FIELDS = {"reachable": ("state",), "unreachable": ("state",), "canAlwaysReach": ("state",),
                "precedes": ("first", "then"), "deadlockFree": ()}


def parse_property(text: str) -> dict[str, Any]:
    """`--property` as JSON (`{"type": "reachable", "state": "b"}`) or as words (`reachable b`)."""
    value = json_or_text(text, "--property")
    if isinstance(value, dict):
        return value
    words = text.split()
    if not words or words[0] not in _WORD_FIELDS or len(words) != 1 + len(_WORD_FIELDS[words[0]]):
        forms = "; ".join(" ".join([kind, *fields]) for kind, fields in _WORD_FIELDS.items())
        raise ToolError("invalid_input", f"--property {text!r}: use JSON, or one of: {forms}")
    return {"type": words[0], **dict(zip(_WORD_FIELDS[words[0]], words[1:], strict=True))}


def _run_check_command(args: argparse.Namespace) -> int:
    from statekit import tools

    arguments: dict[str, Any] = {"machine": read_source(args.file),
                                 "properties": [parse_property(text) for text in args.property]}
    if args.guard:
        arguments["guards"] = guard_results(args.guard)
    if args.max_states is not None:
        arguments["maxStates"] = args.max_states
    result = tools.call("check_machine_properties", arguments)
    print(json.dumps(result, indent=2, ensure_ascii=False) if args.json else summarize(result))
    verdicts = [item["holds"] for item in result["results"]]
    return 1 if False in verdicts else 3 if None in verdicts else 0


def add_commands(subparsers: Any) -> None:
    """Add `statekit check FILE --property P [--property P ...] [--guard N=v] [--max-states N] [--json]`."""
    command = subparsers.add_parser(
        "check", help="prove properties of a machine file; exit 0 if all hold, 1 if one fails, 3 if undecided")
    command.add_argument("file")
    command.add_argument("--property", action="append", required=True, metavar="PROPERTY",
                         help="JSON, or words: 'reachable S', 'unreachable S', 'precedes A B', 'deadlockFree', "
                              "'canAlwaysReach S' (repeat)")
    command.add_argument("--guard", action="append", metavar="NAME=true|false", help="a static guard result")
    command.add_argument("--max-states", type=int, help=f"states to explore at most (default {DEFAULT_MAX_STATES})")
    command.add_argument("--json", action="store_true", help="print the structured result")
    command.set_defaults(handler=_run_check_command)
