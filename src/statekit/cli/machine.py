"""`statekit validate` and `statekit simulate`: the machine tools on a file."""

from __future__ import annotations

import argparse
import json
from typing import Any

from statekit.cli._input import guard_results, json_or_text, parse_json, read_source


def _cmd_validate(args: argparse.Namespace) -> int:
    from statekit import tools

    result = tools.call("validate_machine", {"machine": read_source(args.file)})
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        spec = tools.get("validate_machine")
        assert spec.summarize is not None
        print(spec.summarize(result))
    return 0 if result["ok"] else 1


def _cmd_simulate(args: argparse.Namespace) -> int:
    from statekit import tools

    arguments: dict[str, Any] = {"machine": read_source(args.file), "events": [json_or_text(e, "event") for e in args.events]}
    if args.guard:
        arguments["guards"] = guard_results(args.guard)
    if args.input is not None:
        arguments["input"] = parse_json(args.input, "--input")
    result = tools.call("simulate_machine", arguments)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    previous: dict[str, Any] | None = None
    for step in result["steps"]:
        if previous is not None and changed_nothing(previous, step):
            print(f"{step['event']['type']:<24} (ignored)")
            continue
        previous = step
        value = step["value"] if isinstance(step["value"], str) else json.dumps(step["value"])
        print(f"{step['event']['type']:<24} -> {value}  [{step['status']}]")
        if step["actions"]:
            print(f"{'':<24}    actions: {', '.join(step['actions'])}")
        if step["context"]:
            print(f"{'':<24}    context: {json.dumps(step['context'])}")
        if step.get("error"):
            print(f"{'':<24}    error: {step['error']}")
    assumed = result["normalization"]["assumedGuards"]
    if assumed:
        print(f"assumed true: {', '.join(assumed)}")
    return 0


#: What a step of `simulate_machine` reports about the machine after its event.
_OUTCOME = ("value", "context", "status", "tags", "output", "error")


def changed_nothing(before: dict[str, Any], step: dict[str, Any]) -> bool:
    """Whether `step`'s event left the machine as it was and ran no action: XState ignored it
    (no enabled transition), and printing `EVENT -> state` would read as if it moved."""
    return not step["actions"] and all(before.get(key) == step.get(key) for key in _OUTCOME)


def add_commands(sub: Any) -> None:
    validate = sub.add_parser("validate", help="validate a machine file (JSON or YAML; - for stdin)")
    validate.add_argument("file")
    validate.add_argument("--json", action="store_true", help="print the structured result")
    validate.set_defaults(handler=_cmd_validate)

    simulate = sub.add_parser("simulate", help="run events through a machine file")
    simulate.add_argument("file")
    simulate.add_argument("events", nargs="*", help='event types, or JSON objects like \'{"type":"SET","value":1}\'')
    simulate.add_argument("--guard", action="append", metavar="NAME=true|false", help="a static guard result")
    simulate.add_argument("--input", help="machine input as JSON")
    simulate.add_argument("--json", action="store_true", help="print the structured result")
    simulate.set_defaults(handler=_cmd_simulate)
