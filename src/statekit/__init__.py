"""statekit: statecharts for AI agents.

An exact XState v5 engine in pure Python, tools to validate, simulate, convert and explore
machines (served over MCP), and FSM gating for any MCP server.
"""

from statekit import tools  # `statekit.tools.call(name, arguments)`; tool modules load on first use
from statekit.engine import (
    ActionArgs,
    Actor,
    Assign,
    ExecutableAction,
    Implementations,
    Machine,
    Snapshot,
    VirtualClock,
    assign,
    create_machine,
    initial_transition,
    restore_snapshot,
    setup,
    transition,
)
from statekit.errors import EngineError, MachineDefinitionError, ToolError

__version__ = "0.1.0"

__all__ = [
    "ActionArgs",
    "Actor",
    "Assign",
    "EngineError",
    "ExecutableAction",
    "Implementations",
    "Machine",
    "MachineDefinitionError",
    "Snapshot",
    "ToolError",
    "VirtualClock",
    "assign",
    "create_machine",
    "initial_transition",
    "restore_snapshot",
    "setup",
    "tools",
    "transition",
]


def __getattr__(name: str) -> object:
    """`statekit.tools` on first use: the tool registry imports the formats, kept off `import statekit`."""
    if name == "tools":
        import importlib

        return importlib.import_module("statekit.tools")
    raise AttributeError(f"module 'statekit' has no attribute {name!r}")
