"""`statekit diff`, `statekit patch` and `statekit review`: the change tools on files."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from statekit.analysis.review import REVIEW_FILE_NAME
from statekit.cli._input import parse_json, read_source
from statekit.errors import ToolError


def _read_patches(path: str) -> Any:
    """A JSON or YAML list of patches; JSON-looking text that is not JSON says where it broke."""
    text = read_source(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        if text.lstrip().startswith(("[", "{")):  # meant as JSON: say where the JSON broke
            parse_json(text, f"the patches in {path}")
        raise ToolError("invalid_input", f"{path}: patches are not valid JSON or YAML ({error})") from None


def _print_json(result: Any) -> None:
    print(json.dumps(result, indent=2, ensure_ascii=False))


def _cmd_diff(args: argparse.Namespace) -> int:
    from statekit import tools

    result = tools.call("diff_machines", {"before": read_source(args.before), "after": read_source(args.after),
                                          "includePatches": args.patches})
    if args.json:
        _print_json(result)
    else:
        print(result["summary"])
        if args.patches:
            print("\nPatches:")
            for patch in result["patches"]:
                print("  " + json.dumps(patch, ensure_ascii=False))
    return 1 if result["hasChanges"] and args.exit_code else 0


def _cmd_patch(args: argparse.Namespace) -> int:
    from statekit import tools

    arguments: dict[str, Any] = {"machine": read_source(args.machine), "patches": _read_patches(args.patches)}
    if args.to:
        arguments["to"] = args.to
    result = tools.call("apply_machine_patches", arguments)
    if args.json:
        _print_json(result)
        return 0
    document = result["document"]
    print(document if isinstance(document, str) else json.dumps(document, indent=2, ensure_ascii=False))
    print(result["behavioralSummary"], file=sys.stderr)
    return 0


def _cmd_review(args: argparse.Namespace) -> int:
    from statekit import tools

    result = tools.call("review_machine_implementation", {
        "original": read_source(args.original), "edited": read_source(args.edited), "patches": _read_patches(args.patches),
    })
    if args.json:
        _print_json(result)
    else:
        print(result["artifact"]["content"])
    return 0 if result["verdict"] == "matches" else 1


def add_commands(subparsers: Any) -> None:
    """Add `statekit diff`, `statekit patch` and `statekit review` to the CLI."""
    diff = subparsers.add_parser("diff", help="compare two machine files structurally")
    diff.add_argument("before")
    diff.add_argument("after")
    diff.add_argument("--patches", action="store_true", help="also print patches that turn BEFORE into AFTER")
    diff.add_argument("--exit-code", action="store_true", help="exit 1 when the machines differ")
    diff.add_argument("--json", action="store_true", help="print the structured result")
    diff.set_defaults(handler=_cmd_diff)

    patch = subparsers.add_parser("patch", help="apply a JSON/YAML list of patches to a machine (prints the result)")
    patch.add_argument("machine")
    patch.add_argument("patches")
    patch.add_argument("--to", help="output format: xstate-json (default) or xstate-yaml")
    patch.add_argument("--json", action="store_true", help="print the structured result")
    patch.set_defaults(handler=_cmd_patch)

    review_parser = subparsers.add_parser(
        "review", help=f"review an edited machine against the original and proposed patches (prints {REVIEW_FILE_NAME})"
    )
    review_parser.add_argument("original")
    review_parser.add_argument("edited")
    review_parser.add_argument("patches")
    review_parser.add_argument("--json", action="store_true", help="print the structured result")
    review_parser.set_defaults(handler=_cmd_review)
