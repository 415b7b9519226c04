"""Importing the server package or its CLI options must not load the MCP SDK or HTTP stack."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("mcp", "mcp_types", "uvicorn", "starlette", "jsonschema", "pydantic", "anyio")


def loaded_after(statement: str) -> set[str]:
    probe = f"import sys; {statement}; print(' '.join(sorted(m for m in {HEAVY!r} if m in sys.modules)))"
    completed = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    return set(completed.stdout.split())


def test_package_and_command_options_import_without_the_sdk() -> None:
    assert loaded_after("import statekit.server") == set()
    statement = (
        "import argparse, statekit.cli.serve as c; c.add_arguments(argparse.ArgumentParser())"
    )
    assert loaded_after(statement) == set()


def test_creating_a_server_does_not_load_jsonschema_before_the_first_call() -> None:
    loaded = loaded_after("from statekit.server.core import create_server; create_server()")
    assert "mcp" in loaded
    assert "jsonschema" not in loaded
