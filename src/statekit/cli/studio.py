"""`statekit studio`: the local machine registry served as a Stately-compatible /api/v1 API."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from statekit.cli._input import read_source
from statekit.errors import ToolError


def _cmd_studio(args: argparse.Namespace) -> int:

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


def add_commands(sub: Any) -> None:
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
