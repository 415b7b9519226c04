"""`statekit serve` and `statekit canary`: the MCP server (options and run in statekit.server.command)."""

from __future__ import annotations

from typing import Any


def add_commands(sub: Any) -> None:
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
