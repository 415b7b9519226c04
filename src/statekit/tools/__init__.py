"""The tools: `call(name, arguments) -> dict`, one pipeline shared by the API, the CLI and the server.

`call` runs a tool through the registry's pipeline (size limit, input schema, the tool, output
schema; see `statekit.tools.registry.run_call`); `tools()` lists them, `get(name)` gives one's
`ToolSpec`. Host settings (resource provider, verification adapter, workspace root, limits)
travel in a `ToolContext`. `Supervisor` runs calls in worker processes that bound their time and
memory (the server and the CLI run every call through one; `call(..., supervised=True)` too).
"""

from statekit.hosted.provider import ResourceProvider
from statekit.tools.registry import (
    ToolAnnotations,
    ToolContext,
    ToolSpec,
    call,
    get,
    register,
    run_call,
    tools,
)
from statekit.tools.supervisor import Supervisor
from statekit.verify.adapter import VerificationAdapter

__all__ = [
    "ResourceProvider",
    "Supervisor",
    "ToolAnnotations",
    "ToolContext",
    "ToolSpec",
    "VerificationAdapter",
    "call",
    "get",
    "register",
    "run_call",
    "tools",
]
