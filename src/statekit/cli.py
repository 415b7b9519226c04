"""The `statekit` command: a thin adapter over the tool registry (and the server)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from statekit.budget import DEFAULT_CALL_SECONDS, BudgetStop, CallBudget, running
from statekit.errors import ToolError
from statekit.tools.files import guard_results, json_or_text, read_source

#: Commands that serve until stopped: they have no call budget of their own (each served
#: call has one).
_SERVING_COMMANDS = frozenset({"serve", "studio", "canary"})


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
        try:
            arguments["input"] = json.loads(args.input)
        except json.JSONDecodeError as error:
            raise ToolError("invalid_input", f"--input is not valid JSON: {error.msg}") from None
    result = tools.call("simulate_machine", arguments)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    for step in result["steps"]:
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


def _cmd_studio(args: argparse.Namespace) -> int:
    import os

    from statekit.hosted.api import create_api_app
    from statekit.hosted.config import default_registry_path
    from statekit.hosted.embedded import EmbeddedRegistry
    from statekit.tools.inputs import load_machine_document

    registry = EmbeddedRegistry(args.db or default_registry_path())
    if args.add:
        project_id = args.project_id or registry.create_project(args.project or "Local machines")
        for path in args.add:
            document = load_machine_document(read_source(path))
            name = document.get("id") if isinstance(document.get("id"), str) else Path(path).stem
            machine_id = registry.add_machine(project_id, name, dict(document))
            print(f"added {path} as {machine_id} to {project_id}")
        if not args.serve:
            return 0
    tokens = frozenset(t for t in [*(args.token or []), *os.environ.get("STATEKIT_TOKENS", "").replace(",", " ").split()] if t)
    if not tokens and args.host not in ("127.0.0.1", "localhost", "::1"):
        raise ToolError("invalid_input", "serving the registry beyond loopback needs --token")
    import uvicorn

    print(f"statekit studio: http://{args.host}:{args.port}/api/v1 (registry {registry.path})", file=sys.stderr)
    uvicorn.run(create_api_app(registry, tokens=tokens), host=args.host, port=args.port, log_level="warning")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="statekit", description="Statecharts for AI agents: tools, engine and MCP server.")
    parser.add_argument(
        "--timeout", type=float, default=None, metavar="SECONDS",
        help=f"time budget of the command's work (default $STATEKIT_CALL_TIMEOUT or {DEFAULT_CALL_SECONDS:g})")
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress bar on stderr (it shows only when stderr is a terminal)")
    sub = parser.add_subparsers(dest="command", required=True)

    call = sub.add_parser("call", help="run a tool with JSON arguments and print its structured result")
    call.add_argument("tool")
    call.add_argument("arguments", nargs="?", default="{}")
    call.set_defaults(handler=_cmd_call)

    listing = sub.add_parser("tools", help="list the tools")
    listing.set_defaults(handler=_cmd_tools)

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

    studio = sub.add_parser("studio", help="serve the local machine registry as a Stately-compatible /api/v1 API")
    studio.add_argument("--db", help="registry file (default $STATEKIT_REGISTRY or ~/.statekit/registry.sqlite)")
    studio.add_argument("--add", nargs="+", metavar="FILE", help="add machine files to a project, then exit")
    studio.add_argument("--project", help="name of the project created for --add")
    studio.add_argument("--project-id", help="add to this existing project instead")
    studio.add_argument("--serve", action="store_true", help="with --add: serve afterwards")
    studio.add_argument("--host", default="127.0.0.1")
    studio.add_argument("--port", type=int, default=8766)
    studio.add_argument("--token", action="append", help="accepted bearer token (also STATEKIT_TOKENS)")
    studio.set_defaults(handler=_cmd_studio)

    _add_tool_commands(sub)
    _add_gate_command(sub)
    _add_optional_commands(sub)
    return parser


def _add_tool_commands(sub: Any) -> None:
    """Friendly commands that tool families define next to their tools."""
    from statekit.render.cli import add_render_command
    from statekit.tools.change_tools import add_change_commands
    from statekit.tools.path_tools import add_paths_command
    from statekit.tools.property_tools import add_check_command

    add_paths_command(sub)
    add_check_command(sub)
    add_change_commands(sub)
    add_render_command(sub)


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


def _add_gate_command(sub: Any) -> None:
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


def _add_optional_commands(sub: Any) -> None:
    """Commands whose modules live in optional parts of the package (the MCP server)."""
    try:
        from statekit.server import command as serve_command
    except ImportError:
        return
    serve = sub.add_parser("serve", help="run the MCP server (stdio by default, --http for streamable HTTP)")
    serve_command.add_arguments(serve)
    serve.set_defaults(handler=serve_command.run)
    from statekit.server import canary

    probe = sub.add_parser("canary", help="check a running server: discovery, app template, a visualization")
    canary.add_arguments(probe)
    probe.set_defaults(handler=canary.run)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _run(argv)
    except ModuleNotFoundError as error:
        if (error.name or "statekit").partition(".")[0] == "statekit":
            raise
        # The base install is the engine and the gate; the commands need the extras.
        print(f"error: this command needs the optional package {error.name!r}: "
              "pip install 'statekit[server]' (or the extra that brings it, see ARCHITECTURE.md)", file=sys.stderr)
        return 2


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command in _SERVING_COMMANDS:
            code: int = args.handler(args)
            return code
        bar = ProgressBar(sys.stderr) if sys.stderr.isatty() and not args.no_progress else None
        budget = CallBudget(seconds=_command_seconds(args.timeout), max_output_bytes=None,
                            on_progress=bar.update if bar else None)
        try:
            with running(budget):  # every tool call the command makes shares this budget
                code = args.handler(args)
        except BudgetStop as stop:
            raise stop.error from None
        finally:
            if bar is not None:
                bar.close()
        return code
    except ToolError as error:
        print(f"error [{error.code}]: {error.message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `statekit call ... | head`: the reader left; say nothing more
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


def _command_seconds(flag: float | None) -> float:
    if flag is not None:
        if not flag > 0:
            raise ToolError("invalid_input", "--timeout must be a positive number of seconds")
        return flag
    text = os.environ.get("STATEKIT_CALL_TIMEOUT", "").strip()
    try:
        return float(text) if text and float(text) > 0 else DEFAULT_CALL_SECONDS
    except ValueError:
        return DEFAULT_CALL_SECONDS


class ProgressBar:
    """A one-line progress bar on a terminal, for long commands (paths, verify, render)."""

    WIDTH = 30

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.shown = False

    def update(self, done: float, total: float | None, message: str | None) -> None:
        if total:
            filled = min(self.WIDTH, int(self.WIDTH * done / total))
            line = f"[{'#' * filled}{'.' * (self.WIDTH - filled)}] {min(100, int(100 * done / total)):3d}%"
        else:
            line = f"[{int(done)}]"
        self.stream.write(f"\r\x1b[K{line} {message or ''}"[:200])
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


if __name__ == "__main__":
    sys.exit(main())
