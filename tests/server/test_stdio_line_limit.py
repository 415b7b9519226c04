"""stdio: a line without a newline cannot grow the server; past the limit it is answered and discarded.

The attack of issue 21: a client writing to stdin without ever sending a newline grew the
server by 3.9 GB in 10 s (the SDK's `readline()` holds the whole line). The server here is a
real `python -m statekit.server` subprocess; the test writes 200 MB without a newline, samples
the server's resident memory (VmRSS, and VmHWM, the peak the kernel saw) meanwhile, then ends
the line and checks the answer (-32600 `message_too_large`, id null) and that the server goes on.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import statekit
from statekit.server.http_app import default_max_body_bytes
from statekit.tools.registry import DEFAULT_MAX_SOURCE_BYTES

#: The server runs the statekit this test imports (so the test can be pointed at another tree).
SRC = str(Path(statekit.__file__).resolve().parents[1])
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
SENT_MB = 200
#: The line limit of a server started without --max-body-bytes: the HTTP body cap's default.
DEFAULT_LIMIT = default_max_body_bytes(DEFAULT_MAX_SOURCE_BYTES)
CHUNK = b'{"jsonrpc":"2.0","id":9,"method":"ping","params":{"pad":"' + b"x" * (1024 * 1024)


def memory_mb(pid: int, field: str) -> float:
    match = re.search(rf"{field}:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
    assert match, field
    return int(match.group(1)) / 1024


def start(*extra: str) -> subprocess.Popen[bytes]:
    environment = {**os.environ, "PYTHONPATH": SRC, "STATEKIT_PROVIDER": "none"}
    return subprocess.Popen([sys.executable, "-m", "statekit.server", "--tools", "validate_machine", *extra],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=environment)


def answer(process: subprocess.Popen[bytes]) -> dict[str, Any]:
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line, "the server closed stdout"
    parsed: dict[str, Any] = json.loads(line)
    return parsed


def test_a_line_without_newline_is_answered_and_discarded_with_bounded_memory() -> None:
    process = start()
    timer = threading.Timer(180, process.kill)  # a hang fails the test instead of freezing the suite
    timer.start()
    try:
        assert process.stdin is not None
        process.stdin.write((json.dumps(INIT) + "\n" + json.dumps(INITIALIZED) + "\n").encode())
        process.stdin.flush()
        assert answer(process)["id"] == 1
        baseline = memory_mb(process.pid, "VmRSS")
        for _ in range(SENT_MB):
            process.stdin.write(CHUNK)
        process.stdin.write(b'"}}\n')
        process.stdin.flush()
        refused = answer(process)
        grown = memory_mb(process.pid, "VmHWM") - baseline
        # e361e51 held the whole line (and its decoded copies): several hundred MB here.
        assert grown < 60, f"the server grew by {grown:.0f} MB reading a {SENT_MB} MB line"
        assert refused["id"] is None
        assert refused["error"]["code"] == -32600
        assert refused["error"]["data"] == {"reason": "message_too_large", "limit": DEFAULT_LIMIT}
        # The server goes on: the next line is read and answered.
        process.stdin.write(b'{"jsonrpc":"2.0","id":"after","method":"ping"}\n')
        process.stdin.flush()
        assert answer(process) == {"jsonrpc": "2.0", "id": "after", "result": {}}
        process.stdin.close()
        process.wait(timeout=30)
    finally:
        timer.cancel()
        process.kill()


def test_a_line_at_the_limit_is_read_and_one_past_it_is_refused() -> None:
    limit = 4 * 1024 * 1024 + 100
    process = start("--max-body-bytes", str(limit))
    timer = threading.Timer(120, process.kill)
    timer.start()
    try:
        assert process.stdin is not None
        process.stdin.write((json.dumps(INIT) + "\n" + json.dumps(INITIALIZED) + "\n").encode())
        process.stdin.flush()
        assert answer(process)["id"] == 1
        for request_id, size in (("at", limit), ("over", limit + 1)):
            head = f'{{"jsonrpc":"2.0","id":"{request_id}","method":"ping","params":{{"pad":"'.encode()
            line = head + b"y" * (size - len(head) - 3) + b'"}}'
            assert len(line) == size
            process.stdin.write(line + b"\n")
            process.stdin.flush()
            reply = answer(process)
            if request_id == "at":
                assert reply == {"jsonrpc": "2.0", "id": "at", "result": {}}
            else:
                assert reply["id"] is None and reply["error"]["data"]["limit"] == limit
        process.stdin.close()
        process.wait(timeout=30)
    finally:
        timer.cancel()
        process.kill()
