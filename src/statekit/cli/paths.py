"""`statekit paths`: generate_graph_paths on a machine file."""

from __future__ import annotations

import argparse
import json
from typing import Any

from statekit.analysis.paths import ALGORITHMS, DEFAULT_LIMIT, DEFAULT_MAX_PATHS, MAX_MAX_PATHS
from statekit.cli._input import guard_results, json_or_text, read_source
from statekit.tools.path_tools import summarize_paths


def _run_paths_command(args: argparse.Namespace) -> int:
    from statekit import tools

    arguments: dict[str, Any] = {"machine": read_source(args.file), "algorithm": args.algorithm}
    if args.event:
        arguments["events"] = [json_or_text(event, "event") for event in args.event]
    if args.to_state is not None:
        arguments["toState"] = json_or_text(args.to_state, "--to")
    if args.from_state is not None:
        arguments["fromState"] = json_or_text(args.from_state, "--from")
    if args.limit is not None:
        arguments["limit"] = args.limit
    if args.max_paths is not None:
        arguments["maxPaths"] = args.max_paths
    if args.guard:
        arguments["guards"] = guard_results(args.guard)
    if args.input is not None:
        arguments["input"] = json_or_text(args.input, "--input")
    result = tools.call("generate_graph_paths", arguments)
    print(json.dumps(result, indent=2, ensure_ascii=False) if args.json else summarize_paths(result))
    return 0


def add_commands(subparsers: Any) -> None:
    """Add `statekit paths FILE [--algorithm simple] [--event E ...] [--to S] [--from S] ...`."""
    command = subparsers.add_parser("paths", help="shortest or simple paths through a machine file (JSON or YAML; - for stdin)")
    command.add_argument("file")
    command.add_argument("--algorithm", choices=ALGORITHMS, default="shortest", help="default: shortest")
    command.add_argument("--event", action="append", metavar="EVENT",
                         help="an event to try in every state (a type or a JSON object); repeat; replaces the machine's own")
    command.add_argument("--to", dest="to_state", metavar="STATE", help="only paths to this state (dotted path, JSON value or #id)")
    command.add_argument("--from", dest="from_state", metavar="STATE", help="start from this state value")
    command.add_argument("--limit", type=int, help=f"most (state, event) pairs to explore (default {DEFAULT_LIMIT})")
    command.add_argument("--max-paths", type=int, metavar="N",
                         help=f"most paths to return (default {DEFAULT_MAX_PATHS}, up to {MAX_MAX_PATHS})")
    command.add_argument("--guard", action="append", metavar="NAME=true|false", help="a static guard result")
    command.add_argument("--input", help="machine input as JSON")
    command.add_argument("--json", action="store_true", help="print the structured result")
    command.set_defaults(handler=_run_paths_command)
