"""Fixtures and checks every test folder shares.

* the `needs` marker (`tests/needs.py`): a test that needs node, Redis, Chromium, a corpus...
  skips locally when it is missing and fails under CI=true;
* a real Redis server on 127.0.0.1 for the session.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator

import pytest

from local_services import free_port, wait_for_port
from needs import missing, require


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "needs(available, what, how): skip when `available` is false, fail instead under CI=true"
    )


def pytest_runtest_setup(item: pytest.Item) -> None:
    for mark in item.iter_markers("needs"):
        available, what, how = mark.args
        require(available, what, how)


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A throw-away `redis-server` for this test session, listening on 127.0.0.1 only."""
    binary = shutil.which("redis-server")
    if binary is None:
        missing("redis-server", "apt-get install redis-server")
    try:
        import redis  # noqa: F401
    except ImportError:
        missing("the redis package", "pip install -e '.[test]'")
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
