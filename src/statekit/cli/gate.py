"""`statekit gate`: operate the workflows of a statekit.gate store (the admin logic is statekit.gate.admin)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from statekit.cli._input import json_or_text, read_source
from statekit.errors import ToolError


def _cmd_gate(args: argparse.Namespace) -> int:
    """`statekit gate ACTION`: the admin logic is statekit.gate.admin.run_admin; this only parses."""
    import asyncio

    from statekit.formats.documents import load_config_document
    from statekit.gate.admin import run_admin
    from statekit.gate.store import StoreConflict, StoreError

    workflow = load_config_document(read_source(args.workflow))
    state = None
    if args.gate_action == "force":
        state = json_or_text(args.state, "state")
    try:
        result = asyncio.run(
            run_admin(args.store, workflow, args.gate_action, getattr(args, "key", None), state,
                      namespace=args.namespace, prefix=getattr(args, "prefix", ""))
        )
    except (ValueError, TypeError) as error:
        raise ToolError("invalid_input", str(error)) from None
    except StoreConflict as error:
        raise ToolError("conflict", f"{error}; run the command again") from None
    except StoreError as error:
        raise ToolError("upstream_error", f"the store failed: {error}") from None
    if result is None:
        print(f"error: no workflow {args.key!r} in the store", file=sys.stderr)
        return 1
    print(json.dumps(result, indent=2, ensure_ascii=False, default=str))
    return 0


def add_commands(sub: Any) -> None:
    """Add `statekit gate list|inspect|reset|force|delete`."""
    gate = sub.add_parser("gate", help="operate the workflows of a statekit.gate store (list, inspect, repair)")
    actions = gate.add_subparsers(dest="gate_action", required=True)
    helps = {
        "list": "list the workflow keys",
        "inspect": "show a workflow's record: state, context, lease, timers, audit trail",
        "reset": "put a workflow back in its initial state",
        "force": "put a workflow in a given (validated) state",
        "delete": "forget a workflow",
    }
    for action, text in helps.items():
        parser = actions.add_parser(action, help=text)
        parser.add_argument("--store", required=True, help="sqlite:PATH or redis://HOST:PORT/DB")
        parser.add_argument("--workflow", required=True, help="the gate's workflow file (JSON or YAML)")
        parser.add_argument("--namespace", help="store key prefix (default: '<workflow id>/')")
        if action == "list":
            parser.add_argument("--prefix", default="", help="only keys starting with this (e.g. handle:)")
        else:
            parser.add_argument("key", help="a workflow key such as handle:abc or session:...")
        if action == "force":
            parser.add_argument("state", help='the state value: review, or JSON like \'{"checks": {...}}\'')
        parser.set_defaults(handler=_cmd_gate)
