"""`statekit studio`: the local machine registry served as a Stately-compatible /api/v1 API."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from statekit.cli._input import read_source
from statekit.errors import ToolError


def _cmd_studio(args: argparse.Namespace) -> int:
    from statekit.hosted.config import default_registry_path
    from statekit.hosted.embedded import EmbeddedRegistry
    from statekit.tools.inputs import load_machine_document

    registry = EmbeddedRegistry(args.db or default_registry_path())
    serving = args.serve or not args.add
    app = _guarded_app(args, registry) if serving else None  # bad access settings: refused before any change
    if args.add:
        project_id = args.project_id or registry.create_project(args.project or "Local machines")
        for path in args.add:
            document = load_machine_document(read_source(path))
            name = document.get("id") if isinstance(document.get("id"), str) else Path(path).stem
            machine_id = registry.add_machine(project_id, name, dict(document))
            print(f"added {path} as {machine_id} to {project_id}")
    if app is None:
        return 0
    return _serve(args, app, registry.path)


def _guarded_app(args: argparse.Namespace, registry: Any) -> Any:
    """`registry`'s API behind the MCP endpoint's admission: its Host/Origin checks and its token
    rules (`load_tokens`: 16 characters at least), decided by the same code."""
    from statekit.server.access import (
        AccessConfigError,
        decide_access,
        default_allowed_hosts,
        is_loopback,
        load_tokens,
    )
    from statekit.server.http_app import build_studio_app

    try:
        tokens = load_tokens(args.token, token_file=args.token_file)
        if not tokens and not is_loopback(args.host) and not args.allow_remote_no_auth:
            raise AccessConfigError(f"serving the registry on {args.host!r}, beyond loopback, needs a bearer token "
                                    "(--token, STATEKIT_TOKENS or --token-file)")
        access = decide_access(args.host, "bearer" if tokens else "none", tokens,
                               allow_remote_no_auth=args.allow_remote_no_auth)
        app = build_studio_app(registry, access=access, allowed_hosts=default_allowed_hosts(args.host, args.allowed_host),
                               allowed_origins=args.allowed_origin)
    except (AccessConfigError, OSError) as error:
        raise ToolError("invalid_input", f"statekit studio: {error}") from None
    return app


def _serve(args: argparse.Namespace, app: Any, registry_path: Any) -> int:
    """Serve `app` with the MCP endpoint's connection limits (header and body deadlines, the cap)."""
    import anyio

    from statekit.server.http_app import bind_socket, endpoint_url, serve_http

    try:
        sock = bind_socket(args.host, args.port)
    except OSError as error:
        raise ToolError("invalid_input", f"statekit studio: cannot listen on {args.host}:{args.port}: {error}") from None
    print(f"statekit studio: {endpoint_url(sock, '/api/v1')} (registry {registry_path})", file=sys.stderr, flush=True)
    with sock:
        anyio.run(serve_http, app, sock)
    return 0


def add_commands(sub: Any) -> None:
    studio = sub.add_parser("studio", help="serve the local machine registry as a Stately-compatible /api/v1 API")
    studio.add_argument("--db", help="registry file (default $STATEKIT_REGISTRY or ~/.statekit/registry.sqlite)")
    studio.add_argument("--add", nargs="+", metavar="FILE", help="add machine files to a project, then exit")
    studio.add_argument("--project", help="name of the project created for --add")
    studio.add_argument("--project-id", help="add to this existing project instead")
    studio.add_argument("--serve", action="store_true", help="with --add: serve afterwards")
    studio.add_argument("--host", default="127.0.0.1")
    studio.add_argument("--port", type=int, default=8766)
    studio.add_argument("--token", action="append", default=[],
                        help="an accepted bearer token, at least 16 characters (also STATEKIT_TOKENS); "
                        "without one the registry is served without authentication, on loopback only")
    studio.add_argument("--token-file", default=None, help="file with accepted bearer tokens, one per line")
    studio.add_argument("--allowed-host", action="append", default=[],
                        help="another Host name to answer for (DNS rebinding protection; loopback names always)")
    studio.add_argument("--allowed-origin", action="append", default=[],
                        help="a browser Origin allowed to call the API (besides this server's own)")
    studio.add_argument("--allow-remote-no-auth", action="store_true",
                        help="serve without a token beyond loopback (only behind your own trusted boundary)")
    studio.set_defaults(handler=_cmd_studio)
