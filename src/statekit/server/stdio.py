"""Serving over stdin/stdout, one client per process (the way editors launch local servers)."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO, cast

import anyio
import anyio.to_thread
import mcp_types as types
from anyio.streams.memory import MemoryObjectSendStream
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from statekit.server.jsonrpc_limits import (
    BASE_MAX_MESSAGE_BYTES,
    Rejection,
    check_parsed,
    classify_parser_error,
    message_too_large,
)

logger = logging.getLogger(__name__)

#: Bytes read at a time while the rest of an over-long line is skipped.
_SKIP_CHUNK = 64 * 1024


async def serve_stdio(server: Server[Any], max_line_bytes: int = BASE_MAX_MESSAGE_BYTES) -> None:
    """Serve `server` on this process's stdin/stdout until the client closes stdin.

    The SDK's loop lets the client's first message pick the era: `server/discover` (2026-07-28)
    or `initialize` (2025 clients). Lines the SDK cannot read, and messages that break the strict
    JSON rules of `jsonrpc_limits`, are answered with a JSON-RPC error (-32700 or -32600) instead
    of being dropped silently, and the server goes on reading. A line over `max_line_bytes`
    (the HTTP body cap's counterpart) is never held: it is skipped to its newline and answered
    with -32600 `message_too_large` (id null: its id was never read).
    """
    with _claimed_stdin() as raw:
        lines = BoundedLines(raw, max_line_bytes)
        # The SDK only iterates what it is given (`async for line in stdin`).
        async with stdio_server(stdin=cast("anyio.AsyncFile[str]", lines)) as (read_stream, write_stream):
            screened_send, screened_receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
            async with anyio.create_task_group() as group:
                group.start_soon(_screen, read_stream, screened_send, write_stream)
                group.start_soon(_refuse_overlong, lines, write_stream)
                await server.run(screened_receive, write_stream, server.create_initialization_options())
                group.cancel_scope.cancel()


class BoundedLines:
    """stdin's lines as the SDK's reader takes them, none longer than `limit` bytes.

    The SDK reads stdin with `readline()`, which holds a line however long it grows: a client
    sending gigabytes without a newline grew the server by as much. Here a line is read at most
    `limit + 1` bytes at a time; a longer one is skipped up to its newline, 64 KiB at a time and
    never kept, and its size is put on `overlong` for the server to answer.
    """

    def __init__(self, raw: BinaryIO, limit: int) -> None:
        if limit <= 0:
            raise ValueError("the line limit must be positive")
        self._raw = raw
        self.limit = limit
        self._overlong_send, self.overlong = anyio.create_memory_object_stream[int](16)

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        async with self._overlong_send:
            while True:
                line, skipped = await anyio.to_thread.run_sync(self._read_line, abandon_on_cancel=True)
                if skipped:
                    await self._overlong_send.send(skipped)
                elif not line:
                    return  # end of input: the client closed stdin
                else:
                    yield line.decode("utf-8", errors="replace")  # as the SDK decodes

    def _read_line(self) -> tuple[bytes, int]:
        """One line (b"" at the end of input), or `(b"", bytes skipped)` for an over-long one."""
        line = self._raw.readline(self.limit + 1)
        if len(line) <= self.limit or line.endswith(b"\n"):
            return line, 0
        skipped = len(line)
        while True:
            chunk = self._raw.readline(_SKIP_CHUNK)
            skipped += len(chunk)
            if not chunk or chunk.endswith(b"\n"):
                return b"", skipped


@contextmanager
def _claimed_stdin() -> Iterator[BinaryIO]:
    """The client's stdin, read through a private descriptor while fd 0 points at the null device
    (what the SDK does with the stdin it reads itself): a tool's child process reads EOF, never
    the client's messages. fd 0 is restored on exit; the private one is never closed, since a
    reading thread may still be blocked on it."""
    try:
        backed_by_fd0 = sys.stdin.fileno() == 0
    except (AttributeError, OSError, ValueError):
        backed_by_fd0 = False
    if not backed_by_fd0:
        yield sys.stdin.buffer
        return
    private = os.dup(0)  # not inheritable (PEP 446): no child gets it
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    try:
        yield os.fdopen(private, "rb", closefd=False)
    finally:
        os.dup2(private, 0)


async def _refuse_overlong(lines: BoundedLines, outgoing: Any) -> None:
    async with lines.overlong:
        async for skipped in lines.overlong:
            logger.warning("discarded a stdin line of %d bytes without reading it (the limit is %d, --max-body-bytes)",
                           skipped, lines.limit)
            await outgoing.send(SessionMessage(_error_message(message_too_large(lines.limit))))


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

