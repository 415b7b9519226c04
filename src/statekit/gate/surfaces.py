"""How each kind of server represents tools and results, so the gate's logic is written once.

The SDK's servers (low-level `Server`, `MCPServer`) speak `mcp_types.Tool` and
`CallToolResult`; FastMCP speaks its own `Tool` and `ToolResult` (see `fastmcp_middleware`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

import mcp_types as types

from statekit.gate.results import with_state_note

T = TypeVar("T")


class Surface(Protocol):
    """How one kind of server represents tool results (SDK `CallToolResult`, FastMCP `ToolResult`)."""

    def refusal(self, result: types.CallToolResult) -> Any: ...

    def note(
        self,
        result: Any,
        *,
        state: Any,
        allowed: Sequence[str],
        handle_argument: str | None,
        handle: str | None,
    ) -> Any: ...

    def is_success(self, result: Any) -> bool: ...


class SdkSurface:
    """Results of the SDK's low-level `Server` and `MCPServer`."""

    def refusal(self, result: types.CallToolResult) -> Any:
        return result

    def note(
        self,
        result: Any,
        *,
        state: Any,
        allowed: Sequence[str],
        handle_argument: str | None,
        handle: str | None,
    ) -> Any:
        if not isinstance(result, types.CallToolResult) or result.is_error:
            return result
        return with_state_note(
            result,
            state=state,
            allowed_tools=allowed,
            handle_argument=handle_argument,
            handle=handle,
        )

    def is_success(self, result: Any) -> bool:
        # An error, or a non-final result such as InputRequiredResult: nothing fires.
        return isinstance(result, types.CallToolResult) and not result.is_error


_SDK = SdkSurface()


class ToolView(Protocol[T]):
    """Reads and rewrites one server kind's tool objects."""

    def name(self, tool: T) -> str: ...

    def schema(self, tool: T) -> dict[str, Any]: ...

    def description(self, tool: T) -> str | None: ...

    def meta(self, tool: T) -> dict[str, Any] | None: ...

    def replace(
        self,
        tool: T,
        *,
        schema: dict[str, Any] | None = None,
        description: str | None = None,
        meta: dict[str, Any] | None = None,
    ) -> T: ...


class _SdkTools:
    def name(self, tool: types.Tool) -> str:
        return tool.name

    def schema(self, tool: types.Tool) -> dict[str, Any]:
        return dict(tool.input_schema)

    def description(self, tool: types.Tool) -> str | None:
        return tool.description

    def meta(self, tool: types.Tool) -> dict[str, Any] | None:
        return None if tool.meta is None else dict(tool.meta)

    def replace(
        self,
        tool: types.Tool,
        *,
        schema: dict[str, Any] | None = None,
        description: str | None = None,
        meta: dict[str, Any] | None = None,
    ) -> types.Tool:
        update: dict[str, Any] = {}
        if schema is not None:
            update["input_schema"] = schema
        if description is not None:
            update["description"] = description
        if meta is not None:
            update["meta"] = meta
        return tool.model_copy(update=update)


SDK_TOOLS = _SdkTools()
