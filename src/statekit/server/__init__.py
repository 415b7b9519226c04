"""The statekit MCP server: every registry tool over stdio or streamable HTTP, both protocol eras.

    from statekit.server import create_server
    server = create_server(tools=["validate_machine"], on_tool_call=print)

Names are resolved on first use, so `import statekit.server` does not load the MCP SDK.
See README.md in this package for connecting clients.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from statekit.server.core import ToolRegistration, create_server, register_tools
    from statekit.server.observer import ToolCallEvent, ToolCallObserver

__all__ = [
    "ToolCallEvent",
    "ToolCallObserver",
    "ToolRegistration",
    "create_server",
    "register_tools",
]

_HOMES = {
    "create_server": "statekit.server.core",
    "register_tools": "statekit.server.core",
    "ToolRegistration": "statekit.server.core",
    "ToolCallEvent": "statekit.server.observer",
    "ToolCallObserver": "statekit.server.observer",
}


def __getattr__(name: str) -> Any:
    import importlib

    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'statekit.server' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
