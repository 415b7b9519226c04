"""`statekit serve`: the MCP server on stdio (default) or streamable HTTP.

The options are parsed by the command line (`statekit.cli.serve`); `run` takes them and
imports what the chosen transport needs, so building the parser never loads the MCP SDK.
"""

from __future__ import annotations

import logging
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

#: The parsed options of `statekit serve` (an `argparse.Namespace` made by `statekit.cli.serve`).
ServeOptions = Any

logger = logging.getLogger("statekit.server")

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2


def run(args: ServeOptions) -> int:
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


def _create(args: ServeOptions, client_id: str) -> Server[Any]:
    from statekit.server.core import create_server
    from statekit.tools.registry import ToolContext
    from statekit.tools.supervisor import Supervisor

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
    supervisor = Supervisor(workers=getattr(args, "workers", None))
    server = create_server(
        tools=args.tools,
        max_source_bytes=args.max_source_bytes,
        client_id=client_id,
        context=context,
        supervisor=supervisor,
    )
    supervisor.start()  # in the background: the first tools/list does not wait for the workers
    return server


def _call_limits(args: ServeOptions) -> dict[str, Any]:
    """The per-call budget flags given (the rest comes from the environment or the defaults)."""
    limits: dict[str, Any] = {}
    if getattr(args, "call_timeout", None) is not None:
        limits["call_seconds"] = args.call_timeout
    if getattr(args, "max_output_bytes", None) is not None:
        limits["max_output_bytes"] = args.max_output_bytes
    if getattr(args, "call_memory", None) is not None:
        limits["call_memory"] = args.call_memory
    for option in ("live_max_machines", "live_max_bytes"):
        if getattr(args, option, None) is not None:
            limits[option] = getattr(args, option)
    return limits


def _forward_caller_credential(provider: Any) -> None:
    from statekit.hosted.http_provider import HttpResourceProvider

    if not isinstance(provider, HttpResourceProvider):
        raise ValueError("--forward-credential needs an HTTP resource provider (set STATELY_API_BASE_URL "
                         "or STATEKIT_PROVIDER=http): the embedded registry takes no credential")
    provider.forward_caller_credential = True


def _verification_adapter(args: ServeOptions) -> Any:
    """A Python driver adapter when `--verify-driver` names drivers; otherwise none."""
    from statekit.verify.python_adapter import adapter_from_options

    try:
        return adapter_from_options(args.verify_driver, args.verify_path)
    except ValueError as exc:
        raise SystemExit(f"statekit serve: {exc}") from None


def _run_stdio(args: ServeOptions) -> int:
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
    from statekit.server.jsonrpc_limits import default_max_message_bytes

    anyio.run(serve_stdio, server, args.max_body_bytes or default_max_message_bytes(args.max_source_bytes))
    return EXIT_OK


def _run_http(args: ServeOptions) -> int:
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
