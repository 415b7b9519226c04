"""Fixtures every test folder may use: a real Redis server on 127.0.0.1 for the session."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator

import pytest

from local_services import free_port, wait_for_port


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A throw-away `redis-server` for this test session, listening on 127.0.0.1 only."""
    binary = shutil.which("redis-server")
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail("redis-server is required in CI (apt-get install redis-server)")
        pytest.skip("redis-server is not installed (apt-get install redis-server); CI is unset")
    try:
        import redis  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("the redis package is required in CI (pip install -e '.[test]')")
        pytest.skip("the redis package is not installed (pip install redis); CI is unset")
    port = free_port()
    workdir = tmp_path_factory.mktemp("redis")
    process = subprocess.Popen(
        [
            binary,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(workdir),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, process)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(timeout=10)
