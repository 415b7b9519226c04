"""Process helpers for the gate tests: HTTP server processes (ports and waiting: tests/local_services.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from local_services import free_port, wait_for_port

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "invoice_server.py"


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
