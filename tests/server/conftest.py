"""Fixtures for the MCP server tests: the demo tools and an observer event log."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from server_demo_tools import DEMO_TOOLS
from server_test_support import EventLog

from statekit.tools import registry
from statekit.tools.registry import ToolSpec


@pytest.fixture
def demo_tools(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, ToolSpec]]:
    """The demo tools in the registry for one test, next to the real tools."""
    registry.tools()  # load the real tools first, so the demo ones are removed cleanly afterwards
    for spec in DEMO_TOOLS:
        monkeypatch.setitem(registry._REGISTRY, spec.name, spec)
    yield {spec.name: spec for spec in DEMO_TOOLS}


@pytest.fixture
def event_log() -> EventLog:
    return EventLog()
