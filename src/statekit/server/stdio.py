"""Serving over stdin/stdout, one client per process (the way editors launch local servers)."""

from __future__ import annotations

import logging
from typing import Any

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectSendStream
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from statekit.server.jsonrpc_limits import Rejection, check_parsed, classify_parser_error

logger = logging.getLogger(__name__)


async def serve_stdio(server: Server[Any]) -> None:
    """Serve `server` on this process's stdin/stdout until the client closes stdin.

    The SDK's loop lets the client's first message pick the era: `server/discover` (2026-07-28)
    or `initialize` (2025 clients). Lines the SDK cannot read, and messages that break the strict
    JSON rules of `jsonrpc_limits`, are answered with a JSON-RPC error (-32700 or -32600) instead
    of being dropped silently, and the server goes on reading.
    """
    async with stdio_server() as (read_stream, write_stream):
        screened_send, screened_receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        async with anyio.create_task_group() as group:
            group.start_soon(_screen, read_stream, screened_send, write_stream)
            await server.run(screened_receive, write_stream, server.create_initialization_options())
            group.cancel_scope.cancel()


async def _screen(
    incoming: Any,
    passed: MemoryObjectSendStream[SessionMessage | Exception],
    outgoing: Any,
) -> None:
    async with passed:
        async for item in incoming:
            if isinstance(item, Exception):
                rejection = classify_parser_error(item)
                if rejection is None:
                    continue  # a blank line
            else:
                rejection = _rejection(item)
            if rejection is None:
                await passed.send(item)
                continue
            logger.warning("answered a malformed stdin message with %s (%s)", rejection.code, rejection.message)
            if rejection.request_id is None and isinstance(item, SessionMessage) and not _expects_answer(item):
                continue  # a bad notification or response: JSON-RPC answers neither
            await outgoing.send(SessionMessage(_error_message(rejection)))


def _rejection(item: SessionMessage) -> Rejection | None:
    message = item.message
    request_id = message.id if isinstance(message, types.JSONRPCRequest) else None
    return check_parsed(message.model_dump(by_alias=True, exclude_unset=True), request_id)


def _expects_answer(item: SessionMessage) -> bool:
    return isinstance(item.message, types.JSONRPCRequest)


def _error_message(rejection: Rejection) -> types.JSONRPCError:
    error = (types.ErrorData(code=rejection.code, message=rejection.message, data=rejection.data)
             if rejection.data else types.ErrorData(code=rejection.code, message=rejection.message))
    return types.JSONRPCError(jsonrpc="2.0", id=rejection.request_id, error=error)

