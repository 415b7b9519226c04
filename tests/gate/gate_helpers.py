"""Process helpers for the gate tests: free ports, waiting for a listener, HTTP server processes."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "invoice_server.py"


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[bytes], attempts: int = 1500) -> None:
    """Block until something accepts connections on `port` (or the process died)."""
    for _ in range(attempts):
        if process.poll() is not None:
            raise RuntimeError(f"process exited with {process.returncode} before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.02)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port}")


@contextmanager
def http_server(script: Path, *args: str) -> Iterator[str]:
    """Run `script --http --port P *args` on 127.0.0.1 and yield its MCP endpoint URL."""
    port = free_port()
    command: Sequence[str] = [sys.executable, str(script), "--http", "--port", str(port), *args]
    process = subprocess.Popen(command, cwd=REPO, env=dict(os.environ))
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
