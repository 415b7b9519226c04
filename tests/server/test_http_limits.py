"""HTTP connections that try to hold the server: slow headers, slow bodies, idle keep-alive,
too many connections, clients that vanish mid-body, and bodies no JSON parser should accept.

Each test drives a real uvicorn (statekit's own configuration, `uvicorn_config`) over raw
sockets on 127.0.0.1. Timeouts are set short so the tests are quick, and the tests only check
*that* the server closed or answered (under a generous outer bound), never how fast.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest
from server_demo_tools import DEMO_NAMES
from starlette.types import Receive, Scope, Send

from statekit.cli.serve import HTTP_DEFAULTS, build_parser
from statekit.server import create_server
from statekit.server.access import AccessPolicy, default_allowed_hosts
from statekit.server.http_app import bind_socket, build_http_app
from statekit.server.http_guards import BodyLimitGuard
from statekit.server.http_limits import HttpLimits, uvicorn_config
from statekit.server.jsonrpc_limits import MAX_NESTING, MAX_NUMBER_CHARS
from statekit.tools.registry import ToolSpec

SHORT = HttpLimits(header_timeout=0.5, body_timeout=0.5, keep_alive_timeout=0.5, max_connections=4)
BOUND = 30.0  # the outer bound: a server that never closes fails here, a slow machine does not


@contextlib.asynccontextmanager
async def served(app: Any, limits: HttpLimits = SHORT) -> AsyncIterator[int]:
    import uvicorn

    sock = bind_socket("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn_config(app, limits))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        async with asyncio.timeout(10):
            while not server.started:
                if task.done():
                    task.result()
                await asyncio.sleep(0.01)
        yield sock.getsockname()[1]
    finally:
        server.should_exit = True
        server.force_exit = True
        async with asyncio.timeout(10):
            await task
        sock.close()


async def read_until_closed(reader: asyncio.StreamReader) -> bytes:
    """Everything the server sends until it closes the connection (bounded by BOUND).

    A server that closes while the client is still writing may reset the connection, and a
    reset can discard the answer already received: that counts as closed, with no data.
    """
    async with asyncio.timeout(BOUND):
        try:
            return await reader.read()
        except ConnectionResetError:
            return b"RESET"


def cut_off(data: bytes) -> bool:
    """The server answered 408 and closed, or closed so hard the answer was lost."""
    return data.startswith(b"HTTP/1.1 408") or data == b"RESET"


async def ok_app(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


def test_the_cli_defaults_are_the_library_defaults() -> None:
    defaults = HttpLimits()
    assert vars(HTTP_DEFAULTS) == {"header_timeout": defaults.header_timeout, "body_timeout": defaults.body_timeout,
                                   "keep_alive_timeout": defaults.keep_alive_timeout,
                                   "max_connections": defaults.max_connections}
    args = build_parser().parse_args(["--http", "--header-timeout", "3", "--max-connections", "7"])
    assert args.header_timeout == 3.0 and args.max_connections == 7 and args.body_timeout == defaults.body_timeout
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--body-timeout", "0"])


async def test_a_silent_connection_is_closed() -> None:
    async with served(ok_app) as port:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        data = await read_until_closed(reader)
        writer.close()
    assert data.startswith(b"HTTP/1.1 408")


async def test_headers_trickled_byte_by_byte_are_cut_off() -> None:
    """Slowloris: each byte restarts uvicorn's own idle timer, never the header deadline."""
    async with served(ok_app) as port:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")

        async def trickle() -> None:
            with contextlib.suppress(ConnectionError):
                for _ in range(int(BOUND * 10)):
                    writer.write(b"X")
                    await writer.drain()
                    await asyncio.sleep(0.1)

        trickler = asyncio.create_task(trickle())
        data = await read_until_closed(reader)
        trickler.cancel()
        writer.close()
    assert cut_off(data), data[:100]


async def test_a_slow_body_is_cut_off_with_408() -> None:
    async with served(BodyLimitGuard(ok_app, max_body_bytes=10_000, body_timeout=SHORT.body_timeout)) as port:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n0123456789")
        await writer.drain()

        async def trickle() -> None:
            with contextlib.suppress(ConnectionError):
                for _ in range(int(BOUND * 10)):
                    writer.write(b"0")
                    await writer.drain()
                    await asyncio.sleep(0.1)

        trickler = asyncio.create_task(trickle())
        data = await read_until_closed(reader)
        trickler.cancel()
        writer.close()
    assert cut_off(data), data[:100]
    if data != b"RESET":
        assert json.loads(data.split(b"\r\n\r\n", 1)[1])["error"]["code"] == "bad_request"


async def test_an_idle_keep_alive_connection_is_closed() -> None:
    async with served(ok_app) as port:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        await writer.drain()
        data = await read_until_closed(reader)
        writer.close()
    assert data.startswith(b"HTTP/1.1 200") and data.endswith(b"ok")  # answered, then closed


async def test_connections_over_the_cap_are_answered_503() -> None:
    limits = HttpLimits(header_timeout=BOUND, body_timeout=BOUND, keep_alive_timeout=BOUND, max_connections=3)
    async with served(ok_app, limits) as port:
        held = [await asyncio.open_connection("127.0.0.1", port) for _ in range(3)]
        await asyncio.sleep(0.2)  # let the server accept them
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        data = await read_until_closed(reader)
        assert data.startswith(b"HTTP/1.1 503")
        writer.close()
        for _, held_writer in held:
            held_writer.close()
        await asyncio.sleep(0.2)
        # Once they are gone, a connection is served again.
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        assert (await read_until_closed(reader)).startswith(b"HTTP/1.1 200")
        writer.close()


async def test_a_client_vanishing_mid_body_logs_one_line_and_nothing_is_passed_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    reached: list[Any] = []

    async def recording_app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            reached.append(await receive())
        await ok_app(scope, receive, send)

    caplog.set_level(logging.INFO)
    async with served(BodyLimitGuard(recording_app, max_body_bytes=10_000, body_timeout=BOUND)) as port:
        for _ in range(3):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\"")
            await writer.drain()
            writer.close()
            await read_until_closed(reader)
        async with asyncio.timeout(BOUND):
            while len([r for r in caplog.records if "disconnected" in r.getMessage()]) < 3:
                await asyncio.sleep(0.05)
    assert reached == []
    disconnects = [r for r in caplog.records if "disconnected" in r.getMessage()]
    assert len(disconnects) == 3
    assert all(r.exc_info is None and "\n" not in r.getMessage() for r in caplog.records)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


@pytest.fixture
async def mcp_port(demo_tools: dict[str, ToolSpec]) -> AsyncIterator[int]:
    server = create_server(tools=DEMO_NAMES, max_source_bytes=64 * 1024)
    app = build_http_app(server, access=AccessPolicy(None), allowed_hosts=default_allowed_hosts("127.0.0.1"),
                         max_body_bytes=1024 * 1024)
    async with served(app, HttpLimits()) as port:
        yield port


LEGACY = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
MODERN = {**LEGACY, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "demo_echo"}


def echo_call(argument: str) -> str:
    meta = ('"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
            '"io.modelcontextprotocol/clientCapabilities":{},'
            '"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"0"}}')
    return ('{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"demo_echo",'
            f'"arguments":{{"text":{argument}}},{meta}}}}}')


@pytest.mark.parametrize("headers", [LEGACY, MODERN], ids=["legacy", "modern"])
@pytest.mark.parametrize(
    ("argument", "code", "reason"),
    [
        ("NaN", -32700, "non_finite_number"),
        ("Infinity", -32700, "non_finite_number"),
        ("-Infinity", -32700, "non_finite_number"),
        ("1e999", -32700, "non_finite_number"),
        ("9" * 5000, -32600, "number_too_long"),
        ("9" * (MAX_NUMBER_CHARS + 1), -32600, "number_too_long"),
        ("[" * 5000 + "]" * 5000, -32600, "nesting_too_deep"),
        ("[" * MAX_NESTING + "]" * MAX_NESTING, -32600, "nesting_too_deep"),
    ],
)
async def test_bodies_no_strict_parser_accepts_are_refused_with_codes_that_say_why(
    mcp_port: int, headers: dict[str, str], argument: str, code: int, reason: str
) -> None:
    async with httpx2.AsyncClient() as http:
        response = await http.post(f"http://127.0.0.1:{mcp_port}/mcp", content=echo_call(argument), headers=headers)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == code and error["data"]["reason"] == reason
    assert "Parse error" not in error["message"] or reason == "non_finite_number"


async def test_a_body_within_the_limits_still_works(mcp_port: int) -> None:
    async with httpx2.AsyncClient() as http:
        response = await http.post(f"http://127.0.0.1:{mcp_port}/mcp", content=echo_call('"9' + "9" * 50 + '"'),
                                   headers=MODERN)
    assert response.status_code == 200, response.text
    assert "isError" not in response.text or response.json()["result"].get("isError") is False


def test_a_result_text_block_never_carries_nan_or_infinity() -> None:
    from statekit.server.calls import compact_json

    text = compact_json({"a": float("inf"), "b": [float("nan"), 1.5], "c": {"d": float("-inf")}})
    assert json.loads(text) == {"a": None, "b": [None, 1.5], "c": {"d": None}}
    assert "Infinity" not in text and "NaN" not in text


# -- refusals decided on headers: no body byte read, and the connection closed -------------------

TOKEN = "edge-token-0123456789abcdef"


@pytest.fixture
async def authed_port(demo_tools: dict[str, ToolSpec]) -> AsyncIterator[int]:
    """The MCP app as `statekit serve --http` builds it, with bearer auth and the default limits."""
    server = create_server(tools=DEMO_NAMES, max_source_bytes=64 * 1024)
    app = build_http_app(server, access=AccessPolicy((TOKEN,)), allowed_hosts=default_allowed_hosts("127.0.0.1"),
                         max_body_bytes=1024 * 1024)
    async with served(app, HttpLimits()) as port:  # a 30 s body timeout: the test must not wait for it
        yield port


async def trickled_answer(port: int, headers: bytes, host: bytes = b"127.0.0.1") -> tuple[bytes, bool]:
    """Send `headers` announcing a body, send no body byte, read the answer; then trickle the body
    one byte at a time: `(answer, closed)`, where `closed` says the server closed the connection."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"POST /mcp HTTP/1.1\r\nHost: " + host + b"\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 100000\r\n" + headers + b"\r\n")
    await writer.drain()
    async with asyncio.timeout(BOUND):  # answered with no body byte sent
        head = await reader.readuntil(b"\r\n\r\n")
        length = int(next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")))
        answer = head + await reader.readexactly(length)

    async def trickle() -> None:
        with contextlib.suppress(ConnectionError):
            for _ in range(int(BOUND * 10)):
                writer.write(b"x")
                await writer.drain()
                await asyncio.sleep(0.1)

    trickler = asyncio.create_task(trickle())
    try:
        async with asyncio.timeout(BOUND / 2):  # the body timeout (30 s) is not what ends it
            try:
                closed = await reader.read() == b""
            except ConnectionResetError:
                closed = True
    except TimeoutError:
        closed = False
    trickler.cancel()
    writer.close()
    return answer, closed


@pytest.mark.parametrize("authorization", [b"", b"Authorization: Bearer wrong-token-0123456789\r\n"])
async def test_an_unauthenticated_request_is_refused_at_its_headers_and_cannot_trickle(
        authed_port: int, authorization: bytes) -> None:
    answer, closed = await trickled_answer(authed_port, authorization)
    assert answer.startswith(b"HTTP/1.1 401"), answer[:100]
    assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"]["code"] == "unauthenticated"
    assert closed, "the refused client held its connection by trickling the body"


async def test_a_foreign_host_is_refused_at_its_headers_and_cannot_trickle(authed_port: int) -> None:
    answer, closed = await trickled_answer(authed_port, b"Authorization: Bearer " + TOKEN.encode() + b"\r\n",
                                           host=b"evil.example")
    assert answer.startswith(b"HTTP/1.1 421"), answer[:100]
    assert closed, "the refused client held its connection by trickling the body"


def test_auth_is_checked_before_the_body_is_read() -> None:
    """The guards' order in `build_http_app`: Host/Origin, then bearer auth, then the body reader."""
    from statekit.server.http_guards import BearerAuthGuard, OriginGuard

    server = create_server(tools=["validate_machine"])
    app = build_http_app(server, access=AccessPolicy((TOKEN,)), allowed_hosts=default_allowed_hosts("127.0.0.1"))
    chain = []
    layer: Any = app
    while hasattr(layer, "app"):
        chain.append(type(layer))
        layer = layer.app
    assert chain[:3] == [OriginGuard, BearerAuthGuard, BodyLimitGuard]


async def test_an_authenticated_slow_body_still_gets_its_body_timeout(authed_port: int) -> None:
    """The close-on-unread-body rule does not cut off a client that was let in: its body is read
    (a complete request still works on the same connection)."""
    body = echo_call('"hi"').encode()
    reader, writer = await asyncio.open_connection("127.0.0.1", authed_port)
    request = (b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + TOKEN.encode()
               + b"\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
               + b"".join(f"{k}: {v}\r\n".encode() for k, v in MODERN.items() if k not in ("content-type", "accept"))
               + f"Content-Length: {len(body)}\r\n\r\n".encode())
    for _ in range(2):
        writer.write(request + body[:10])
        await writer.drain()
        await asyncio.sleep(0.2)
        writer.write(body[10:])
        await writer.drain()
        async with asyncio.timeout(BOUND):
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length")))
            answer = await reader.readexactly(length)
        assert head.startswith(b"HTTP/1.1 200"), head
        assert b"hi" in answer and b"isError\":true" not in answer
    writer.close()


async def test_any_answer_given_before_the_body_is_read_closes_the_connection() -> None:
    """By construction, in the protocol: whatever app answers without reading the body (here one
    that sends no `connection: close`, as Starlette's 404/405 do), the connection is closed with
    the answer, so trickling the unread body holds nothing."""
    async with served(ok_app, HttpLimits()) as port:
        answer, closed = await trickled_answer(port, b"")
    assert answer.startswith(b"HTTP/1.1 200") and b"connection: close" not in answer.lower()
    assert closed, "a client trickling an unread body held its connection"
