"""The tool registry: `call(name, arguments) -> dict`, shared by the API, the CLI and the server."""

from statekit.tools.registry import ToolAnnotations, ToolSpec, call, get, register, tools

__all__ = ["ToolAnnotations", "ToolSpec", "call", "get", "register", "tools"]
