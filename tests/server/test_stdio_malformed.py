"""stdio: every malformed line is answered with a JSON-RPC error and the server goes on.

The SDK's stdio loop used to drop such lines silently, leaving the client waiting forever.
The server is a real `python -m statekit.server` subprocess driven by raw lines.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

SRC = str(Path(__file__).resolve().parents[2] / "src")
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def exchange(lines: list[str], expected_answers: int) -> list[dict[str, Any]]:
    """Send `lines` (after the handshake), then a ping; return every answer before the ping's.

    stdin stays open until the ping is answered: the server must go on after the bad lines.
    """
    environment = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    ping = json.dumps({"jsonrpc": "2.0", "id": "last", "method": "ping"})
    process = subprocess.Popen(
        [sys.executable, "-m", "statekit.server", "--tools", "validate_machine"], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment,
    )
    timer = threading.Timer(120, process.kill)  # a hang fails the test instead of freezing the suite
    timer.start()
    try:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write("\n".join([json.dumps(INIT), json.dumps(INITIALIZED), *lines, ping]) + "\n")
        process.stdin.flush()
        answers: list[dict[str, Any]] = []
        for line in process.stdout:
            answers.append(json.loads(line))
            if answers[-1].get("id") == "last":
                break
        process.stdin.close()
        process.wait()
    finally:
        timer.cancel()
        process.kill()
    assert answers and answers[-1] == {"jsonrpc": "2.0", "id": "last", "result": {}}, answers
    assert answers[0]["id"] == 1 and len(answers) == expected_answers + 2, answers
    return answers[1:-1]


CASES = [  # (line, JSON-RPC code, error.data.reason); one server process reads them all in a row
    ("{not json", -32700, None),
    ("", None, None),  # a blank line is no message: nothing to answer
    ('{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":NaN}}', -32700, "non_finite_number"),
    ('{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":-Infinity}}', -32700, "non_finite_number"),
    ('{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":' + "9" * 5000 + "}}", -32600, "number_too_long"),
    ('{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":' + "9" * 300 + "}}", -32600, "number_too_long"),
    ('{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":' + "[" * 5000 + "]" * 5000 + "}}",
     -32600, "nesting_too_deep"),
    ("[1, 2]", -32600, "not_jsonrpc"),
    ('{"hello": "world"}', -32600, "not_jsonrpc"),
    ("nope", -32700, None),
]


def test_every_malformed_line_gets_an_error_and_the_server_goes_on() -> None:
    expected = [(code, reason) for _line, code, reason in CASES if code is not None]
    answers = exchange([line for line, _code, _reason in CASES], len(expected))
    got = [(a["error"]["code"], (a["error"].get("data") or {}).get("reason")) for a in answers]
    assert got == expected
    assert all(a["id"] in (None, 7) for a in answers)
    assert [a["id"] for a in answers if a["error"].get("data", {}).get("reason") == "non_finite_number"] == [7, 7]
