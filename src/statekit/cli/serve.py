"""`statekit serve` and `statekit canary`: the MCP server's options (it runs in statekit.server)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

# The defaults of `statekit.server.http_limits.HttpLimits`, repeated here so building the CLI
# parser does not import uvicorn (checked equal by tests/server/test_http_limits.py).
HTTP_DEFAULTS = argparse.Namespace(header_timeout=10.0, body_timeout=30.0, keep_alive_timeout=5.0,
                                   max_connections=100)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("must be a positive number")
    return value


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError("a port is 0-65535 (0 picks a free port)")
    return value


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError("must be a positive number of seconds")
    return value


def _byte_size(text: str) -> int:
    from statekit.budget import parse_byte_size

    try:
        return parse_byte_size(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _tool_list(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """`statekit serve`'s options (also `python -m statekit.server`)."""
    from statekit.budget import DEFAULT_CALL_SECONDS, DEFAULT_MAX_OUTPUT_BYTES
    from statekit.server.command import DEFAULT_HOST, DEFAULT_PORT
    from statekit.tools.registry import (
        DEFAULT_LIVE_MAX_BYTES,
        DEFAULT_LIVE_MAX_MACHINES,
        DEFAULT_MAX_SOURCE_BYTES,
    )

    """Add the `serve` options to `parser`."""
    parser.add_argument(
        "--http", action="store_true", help="serve streamable HTTP instead of stdio"
    )
    parser.add_argument(
        "--host", default=DEFAULT_HOST, help=f"HTTP bind address (default {DEFAULT_HOST})"
    )
    parser.add_argument(
        "--port",
        type=_port,
        default=DEFAULT_PORT,
        help=f"HTTP port (default {DEFAULT_PORT}; 0 picks a free port)",
    )
    parser.add_argument(
        "--tools", type=_tool_list, default=None, help="comma-separated allowlist of tools to serve"
    )
    parser.add_argument(
        "--max-source-bytes",
        type=_positive_int,
        default=DEFAULT_MAX_SOURCE_BYTES,
        help=f"largest tool input in UTF-8 bytes (default {DEFAULT_MAX_SOURCE_BYTES})",
    )
    parser.add_argument(
        "--max-body-bytes",
        type=_positive_int,
        default=None,
        help="largest request: an HTTP body or a stdio line; a longer stdio line is discarded unread and "
        "answered -32600 (default: twice --max-source-bytes plus 1 MiB, at least 4 MiB)",
    )
    parser.add_argument(
        "--call-timeout", type=_positive_seconds, default=None,
        help=f"seconds one tool call may run before it is stopped with deadline_exceeded "
        f"(default $STATEKIT_CALL_TIMEOUT or {DEFAULT_CALL_SECONDS:g})",
    )
    parser.add_argument(
        "--max-output-bytes", type=_positive_int, default=None,
        help=f"largest tool result in bytes of JSON; larger ones are refused with output_too_large "
        f"(default $STATEKIT_MAX_OUTPUT_BYTES or {DEFAULT_MAX_OUTPUT_BYTES})",
    )
    parser.add_argument(
        "--call-memory", type=_byte_size, default=None, metavar="SIZE",
        help="memory one tool call may use (bytes, or with K, M, G: 512M, 1G); a call past it is stopped with "
        "resource_exhausted (default $STATEKIT_CALL_MEMORY or 1G)",
    )
    parser.add_argument(
        "--workers", type=_positive_int, default=None, metavar="N",
        help="worker processes that run tool calls, each call bounded in time and memory "
        "(default $STATEKIT_WORKERS or one per core, at least 2)",
    )
    parser.add_argument(
        "--header-timeout", type=_positive_seconds, default=HTTP_DEFAULTS.header_timeout,
        help=f"seconds for a request's headers to arrive, however slowly they trickle "
        f"(default {HTTP_DEFAULTS.header_timeout:g}; answered 408 and closed)",
    )
    parser.add_argument(
        "--body-timeout", type=_positive_seconds, default=HTTP_DEFAULTS.body_timeout,
        help=f"seconds for a request's whole body to arrive (default {HTTP_DEFAULTS.body_timeout:g})",
    )
    parser.add_argument(
        "--keep-alive-timeout", type=_positive_seconds, default=HTTP_DEFAULTS.keep_alive_timeout,
        help=f"seconds an idle keep-alive connection stays open (default {HTTP_DEFAULTS.keep_alive_timeout:g})",
    )
    parser.add_argument(
        "--max-connections", type=_positive_int, default=HTTP_DEFAULTS.max_connections,
        help=f"open HTTP connections at once; more are answered 503 (default {HTTP_DEFAULTS.max_connections})",
    )
    parser.add_argument(
        "--auth",
        choices=("bearer", "none"),
        default="bearer",
        help="HTTP authentication (default bearer)",
    )
    parser.add_argument(
        "--token",
        action="append",
        default=[],
        help="an accepted bearer token (repeatable; prefer STATEKIT_TOKENS or --token-file: flags show in ps)",
    )
    parser.add_argument(
        "--token-file", default=None, help="file with accepted bearer tokens, one per line"
    )
    parser.add_argument(
        "--forward-credential",
        action="store_true",
        default=os.environ.get("STATEKIT_FORWARD_CREDENTIAL", "").strip().lower() in ("1", "true", "yes"),
        help="HTTP with --auth bearer: send each caller's own bearer token (never the server's) to the "
        "Stately-compatible resource API of the hosted resource tools; also STATEKIT_FORWARD_CREDENTIAL=1",
    )
    parser.add_argument(
        "--allow-remote-no-auth",
        action="store_true",
        help="allow --auth none on a non-loopback host (only behind your own trusted boundary)",
    )
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        help="extra Host name the endpoint answers for (repeatable)",
    )
    parser.add_argument(
        "--allowed-origin",
        action="append",
        default=[],
        help="extra browser Origin to accept exactly (repeatable)",
    )
    parser.add_argument(
        "--workspace",
        default=".",
        help="root the workspace tools (list_machines, get_machine) read below (default: here)",
    )
    parser.add_argument(
        "--store",
        default=None,
        metavar="URL",
        help="where state that outlives a call is kept (live machines): memory:// (default), "
        "sqlite:///path/to/file.db or redis://host:port/db; several servers on one store share it "
        "(default: $STATEKIT_STORE, else memory://)",
    )
    parser.add_argument(
        "--live-max-machines", type=_positive_int, default=None, metavar="N",
        help=f"live machines one caller (one bearer token; everyone without auth) may keep; more are refused "
        f"with quota_exceeded (default $STATEKIT_LIVE_MAX_MACHINES or {DEFAULT_LIVE_MAX_MACHINES})",
    )
    parser.add_argument(
        "--live-max-bytes", type=_positive_int, default=None, metavar="BYTES",
        help=f"bytes of stored live machines one caller may keep (default $STATEKIT_LIVE_MAX_BYTES or "
        f"{DEFAULT_LIVE_MAX_BYTES})",
    )
    parser.add_argument(
        "--verify-driver",
        action="append",
        default=[],
        metavar="NAME=MODULE",
        help="enable `verify` with a Python driver module for model-based tests (repeatable)",
    )
    parser.add_argument(
        "--verify-path",
        action="append",
        default=[],
        metavar="DIR",
        help="folder the verification drivers (and the system under test) import from",
    )


def build_parser() -> argparse.ArgumentParser:
    """The parser `python -m statekit.server` uses (the same options as `statekit serve`)."""
    parser = argparse.ArgumentParser(
        prog="statekit serve", description="Serve the statekit tools over MCP."
    )
    add_arguments(parser)
    return parser


def add_canary_arguments(parser: argparse.ArgumentParser) -> None:
    """`statekit canary`'s options."""
    parser.add_argument("url", help="the server's MCP endpoint, e.g. http://127.0.0.1:8765/mcp")
    parser.add_argument("--token", help="bearer token (or STATEKIT_CANARY_TOKEN)")
    parser.add_argument("--mode", default="auto", choices=["auto", "legacy", "2026-07-28"], help="protocol era")


def stdio_banner(tools: list[str] | None) -> str:
    """The line `statekit serve` shows a person who ran it on a terminal: stdio looks hung otherwise."""
    from statekit.tools import registry

    count = len(tools) if tools is not None else len(registry.tools())
    return (f"statekit serve: MCP server on stdio ({count} tools), waiting for an MCP client to speak "
            "JSON-RPC on stdin; start it from your client instead (README: set up). Ctrl-C or Ctrl-D stops it.")


def _serve(args: argparse.Namespace) -> int:
    # HTTP says where it listens by itself; stdio says nothing to the terminal it runs on.
    if not args.http and sys.stderr.isatty():
        print(stdio_banner(args.tools), file=sys.stderr, flush=True)
    code: int = args.serve(args)
    return code


def add_commands(sub: Any) -> None:
    """Commands whose modules live in optional parts of the package (the MCP server)."""
    try:
        from statekit.server import canary
        from statekit.server import command as serve_command
    except ImportError:
        return
    serve = sub.add_parser("serve", help="run the MCP server (stdio by default, --http for streamable HTTP)")
    add_arguments(serve)
    serve.set_defaults(handler=_serve, serve=serve_command.run)
    probe = sub.add_parser("canary", help="check a running server: discovery, app template, a visualization")
    add_canary_arguments(probe)
    probe.set_defaults(handler=canary.run)
