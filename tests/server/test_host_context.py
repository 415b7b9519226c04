"""The server hands its host context to tools: workspace root, resource provider, verification.

Every tool of the spec is served, and each family answers through a real SDK client over
stdio: the workspace tools read the `--workspace` root, the hosted tools read the registry
named by `STATEKIT_REGISTRY`, and `verify` runs through `--verify-driver`.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from statekit.hosted.embedded import EmbeddedRegistry
from statekit.verify.python_adapter import network_isolation_available

ROOT = Path(__file__).resolve().parents[2]
SPEC_TOOLS = {
    "validate_machine", "convert_machine", "diff_machines", "apply_machine_patches", "review_machine_implementation",
    "generate_graph_paths", "simulate_machine", "visualize_machine", "extract_machines_from_code", "list_machines",
    "get_machine", "verify", "generate_test_paths", "coverage_report", "list_stately_projects", "get_stately_project",
    "list_stately_project_machines", "get_stately_machine", "visualize_stately_machine",
}
MACHINE = json.loads((ROOT / "examples" / "verify" / "turnstile.json").read_text())


def structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    data: dict[str, Any] = result.structured_content
    return data


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_host_context_reaches_the_tools(tmp_path: Path, mode: str) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "turnstile.json").write_text(json.dumps(MACHINE))
    registry = EmbeddedRegistry(tmp_path / "registry.sqlite")
    registry.add_machine(registry.create_project("Demo", project_id="demo"), "turnstile", MACHINE, machine_id="m1")
    env = {**os.environ, "STATEKIT_REGISTRY": str(registry.path), "STATEKIT_PROVIDER": "embedded"}
    env.pop("STATELY_API_BASE_URL", None)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "statekit.server", "--workspace", str(workspace),
              "--verify-driver", "turnstile=turnstile_driver", "--verify-path", str(ROOT / "examples" / "verify")],
        env=env,
    )
    async with Client(params, mode=mode) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        registered = names & SPEC_TOOLS
        assert {"list_machines", "get_machine", "verify", "list_stately_projects"} <= registered
        listed = structured(await client.call_tool("list_machines", {}))
        assert [m["machineId"] for m in listed["machines"]] == ["turnstile.json"]
        project = structured(await client.call_tool("get_stately_project", {"projectId": "demo"}))
        assert project["project"]["machineIds"] == ["m1"]
        if network_isolation_available():
            report = structured(await client.call_tool("verify", {"model": {"kind": "machine", "machineId": "m1"}}))
            assert report["report"]["verdict"] == "passed"
