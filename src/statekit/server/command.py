"""`statekit serve`: the MCP server on stdio (default) or streamable HTTP.

This module only touches `argparse` at import time, so the CLI can build its parser without
loading the MCP SDK; `run` imports what the chosen transport needs.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from statekit.budget import DEFAULT_CALL_SECONDS, DEFAULT_MAX_OUTPUT_BYTES
from statekit.tools.registry import DEFAULT_MAX_SOURCE_BYTES

# The defaults of `statekit.server.http_limits.HttpLimits`, repeated here so building the CLI
# parser does not import uvicorn (checked equal by tests/server/test_http_limits.py).
HTTP_DEFAULTS = argparse.Namespace(header_timeout=10.0, body_timeout=30.0, keep_alive_timeout=5.0,
                                   max_connections=100)

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

logger = logging.getLogger("statekit.server")

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2


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


def _tool_list(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def add_arguments(parser: argparse.ArgumentParser) -> None:
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
        help="largest HTTP request body (default: derived)",
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
    """The parser `python -m statekit.server` uses."""
    parser = argparse.ArgumentParser(
        prog="statekit serve", description="Serve the statekit tools over MCP."
    )
    add_arguments(parser)
    return parser


def run(args: argparse.Namespace) -> int:
    """Serve until the client disconnects (stdio) or the process is interrupted (HTTP)."""
    if not logging.getLogger().handlers:
        # stdout carries the protocol on stdio, so diagnostics always go to stderr.
        logging.basicConfig(
            stream=sys.stderr, level=logging.WARNING, format="statekit: %(levelname)s %(message)s"
        )
    try:
        return _run_http(args) if args.http else _run_stdio(args)
    except KeyboardInterrupt:
        return EXIT_OK


def _create(args: argparse.Namespace, client_id: str) -> Server[Any]:
    from statekit.server.core import create_server
    from statekit.tools.registry import ToolContext

    store = {"store_url": args.store} if args.store else {}
    context = ToolContext.from_environment(
        client_id=client_id,
        max_source_bytes=args.max_source_bytes,
        workspace_root=args.workspace,
        verification_adapter=_verification_adapter(args),
        **store,
        **_call_limits(args),
    )
    if getattr(args, "forward_credential", False):
        _forward_caller_credential(context.resource_provider)
    return create_server(
        tools=args.tools,
        max_source_bytes=args.max_source_bytes,
        client_id=client_id,
        context=context,
    )


def _call_limits(args: argparse.Namespace) -> dict[str, Any]:
    """The per-call budget flags given (the rest comes from the environment or the defaults)."""
    limits: dict[str, Any] = {}
    if getattr(args, "call_timeout", None) is not None:
        limits["call_seconds"] = args.call_timeout
    if getattr(args, "max_output_bytes", None) is not None:
        limits["max_output_bytes"] = args.max_output_bytes
    return limits


def _forward_caller_credential(provider: Any) -> None:
    from statekit.hosted.http_provider import HttpResourceProvider

    if not isinstance(provider, HttpResourceProvider):
        raise ValueError("--forward-credential needs an HTTP resource provider (set STATELY_API_BASE_URL "
                         "or STATEKIT_PROVIDER=http): the embedded registry takes no credential")
    provider.forward_caller_credential = True


def _verification_adapter(args: argparse.Namespace) -> Any:
    """A Python driver adapter when `--verify-driver` names drivers; otherwise none."""
    if not args.verify_driver:
        return None
    from statekit.verify.python_adapter import PythonDriverAdapter

    drivers: dict[str, str] = {}
    for item in args.verify_driver:
        name, _, module = item.partition("=")
        if not name or not module:
            raise SystemExit(f"statekit serve: --verify-driver takes NAME=MODULE, not {item!r}")
        drivers[name] = module
    paths = [str(Path(p).resolve()) for p in args.verify_path]
    return PythonDriverAdapter(drivers, extra_paths=paths)


def _run_stdio(args: argparse.Namespace) -> int:
    import anyio

    from statekit.server.stdio import serve_stdio

    if args.forward_credential:
        print("statekit serve: --forward-credential is for HTTP (a stdio client sends no bearer token)",
              file=sys.stderr)
        return EXIT_USAGE
    try:
        server = _create(args, "statekit/stdio")
    except ValueError as exc:
        print(f"statekit serve: {exc}", file=sys.stderr)
        return EXIT_USAGE
    anyio.run(serve_stdio, server)
    return EXIT_OK


def _run_http(args: argparse.Namespace) -> int:
    import anyio

    from statekit.server.access import (
        AccessConfigError,
        decide_access,
        default_allowed_hosts,
        load_tokens,
    )
    from statekit.server.http_app import (
        bind_socket,
        build_http_app,
        default_max_body_bytes,
        endpoint_url,
        serve_http,
    )
    from statekit.server.http_limits import HttpLimits

    try:
        tokens = (
            load_tokens(args.token, token_file=args.token_file) if args.auth == "bearer" else []
        )
        access = decide_access(
            args.host, args.auth, tokens, allow_remote_no_auth=args.allow_remote_no_auth
        )
        server = _create(args, "statekit/http")
        app = build_http_app(
            server,
            access=access,
            allowed_hosts=default_allowed_hosts(args.host, args.allowed_host),
            allowed_origins=args.allowed_origin,
            max_body_bytes=args.max_body_bytes or default_max_body_bytes(args.max_source_bytes),
            body_timeout=args.body_timeout,
            forward_credential=args.forward_credential,
        )
    except (AccessConfigError, ValueError, OSError) as exc:
        print(f"statekit serve: {exc}", file=sys.stderr)
        return EXIT_USAGE
    limits = HttpLimits(header_timeout=args.header_timeout, body_timeout=args.body_timeout,
                        keep_alive_timeout=args.keep_alive_timeout, max_connections=args.max_connections)
    try:
        sock = bind_socket(args.host, args.port)
    except OSError as exc:
        print(f"statekit serve: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    print(f"statekit MCP server listening on {endpoint_url(sock)}", file=sys.stderr, flush=True)
    with sock:
        anyio.run(serve_http, app, sock, limits)
    return EXIT_OK
