"""An agent's first session: the official SDK client lists the tools of a real `statekit serve`
(stdio) and calls every tool with the arguments a model would write from the listing alone.

`AGENT_ARGUMENTS` is that table: each entry uses only what the tool's listed description and
input schema say (machines in the formats the `machine` argument names, patches written from the
operation signatures in the `patches` description, the handle start_machine returns). Each entry
is checked against the listed input schema (`$ref` into `$defs` resolved as a client does), and
each call must succeed; the SDK client checks each result against the listed output schema.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import jsonschema
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from statekit.hosted.embedded import EmbeddedRegistry
from statekit.tools.references import PATCHES_URI, TOOL_SCHEMAS_URI
from statekit.verify.python_adapter import network_isolation_available
from tool_arguments import MACHINE, ROOT

TS_SOURCE = """import { createMachine } from 'xstate';
export const door = createMachine({
  id: 'door',
  initial: 'closed',
  states: {
    closed: { on: { OPEN: 'open' } },
    open: { on: { CLOSE: 'closed' } },
  },
});
"""
MERMAID = "stateDiagram-v2\n  [*] --> Idle\n  Idle --> Running: START\n  Running --> Idle: STOP\n"
SCXML = ('<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" initial="off">'
         '<state id="off"><transition event="flip" target="on"/></state>'
         '<state id="on"><transition event="flip" target="off"/></state></scxml>')
YAML = "id: light\ninitial: green\nstates:\n  green:\n    on:\n      TIMER: yellow\n  yellow:\n    on:\n      TIMER: red\n  red: {}\n"
EDITED = {**MACHINE, "states": {**MACHINE["states"], "broken": {"type": "final"}}}
#: Written from the `patches` description: createTransition(sourceId,eventType,targetId?,...).
PATCHES = [{"op": "createTransition", "sourceId": "turnstile.unlocked", "eventType": "RESET",
            "targetId": "turnstile.locked"}]
#: Set from start_machine's result: the handle the later live-machine calls take.
HANDLE = "<machineHandle of start_machine>"

#: The format each text sample is in, as the `machine` argument's description names it.
SAMPLE_FORMATS = {TS_SOURCE: "XState JS/TS source", MERMAID: "Mermaid", SCXML: "SCXML", YAML: "XState YAML"}

#: Tool -> the arguments a model writes from the listing, in the order an agent would call them.
AGENT_ARGUMENTS: dict[str, dict[str, Any]] = {
    "list_machines": {},
    "get_machine": {"machineId": "turnstile.json"},
    "validate_machine": {"machine": YAML},
    "simulate_machine": {"machine": SCXML, "events": ["flip", "flip"]},
    "convert_machine": {"machine": TS_SOURCE, "to": "mermaid"},
    "extract_machines_from_code": {"code": TS_SOURCE, "filename": "door.ts"},
    "visualize_machine": {"machine": MERMAID, "direction": "right"},
    "generate_graph_paths": {"machine": MACHINE, "algorithm": "shortest", "maxPaths": 3},
    "check_machine_properties": {"machine": TS_SOURCE, "properties": [
        {"type": "reachable", "state": "open"}, {"type": "deadlockFree"},
        {"type": "precedes", "first": "closed", "then": "open"}]},
    "diff_machines": {"before": MACHINE, "after": EDITED, "includePatches": True},
    "apply_machine_patches": {"machine": MACHINE, "patches": PATCHES, "to": "yaml"},
    "review_machine_implementation": {"original": MACHINE, "edited": MACHINE, "patches": PATCHES},
    "start_machine": {"machine": TS_SOURCE, "ttlSeconds": 60},
    "send_events": {"machineHandle": HANDLE, "events": ["OPEN", {"type": "CLOSE"}], "advanceMs": 10},
    "get_machine_snapshot": {"machineHandle": HANDLE},
    "stop_machine": {"machineHandle": HANDLE},
    "list_stately_projects": {},
    "get_stately_project": {"projectId": "demo"},
    "list_stately_project_machines": {"projectId": "demo"},
    "get_stately_machine": {"machineId": "m1"},
    "visualize_stately_machine": {"machineId": "m1"},
    "verify": {"model": {"kind": "machine", "machineId": "m1"}},
    "generate_test_paths": {"report": "<report of verify>"},
    "coverage_report": {"report": "<report of verify>"},
}


def server_parameters(tmp_path: Any) -> StdioServerParameters:
    """`statekit serve` over stdio with a workspace, an embedded hosted registry and a verify driver."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "turnstile.json").write_text(json.dumps(MACHINE))
    hosted = EmbeddedRegistry(tmp_path / "registry.sqlite")
    hosted.add_machine(hosted.create_project("Demo", project_id="demo"), "turnstile", MACHINE, machine_id="m1")
    env = {**os.environ, "STATEKIT_REGISTRY": str(hosted.path), "STATEKIT_PROVIDER": "embedded"}
    env.pop("STATELY_API_BASE_URL", None)
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "statekit.cli", "serve", "--workspace", str(workspace),
              "--verify-driver", "turnstile=turnstile_driver", "--verify-path", str(ROOT / "examples" / "verify")],
        env=env)


@pytest.mark.skipif(not network_isolation_available(), reason="verify's driver needs `unshare -rn`")
async def test_an_agent_calls_every_tool_from_the_listing_alone(tmp_path: Any) -> None:
    async with Client(server_parameters(tmp_path), mode="legacy") as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        # The reference documents the descriptions point to are served.
        resources = {str(resource.uri) for resource in (await client.list_resources()).resources}
        assert {PATCHES_URI, TOOL_SCHEMAS_URI} <= resources
        patches = await client.read_resource(PATCHES_URI)
        assert json.loads(patches.contents[0].text)["items"]["oneOf"]  # type: ignore[union-attr]
        assert set(listed) == set(AGENT_ARGUMENTS), "every listed tool has a row in AGENT_ARGUMENTS"
        found: dict[str, Any] = {}
        for name, written in AGENT_ARGUMENTS.items():
            arguments = json.loads(json.dumps(written).replace(json.dumps(HANDLE), json.dumps(found.get("handle"))))
            if name in ("generate_test_paths", "coverage_report"):
                arguments = {"report": found["report"]}
            # What the model sees is all it used: the arguments conform to the listed schema, and a
            # machine given as text is in a format the listed argument names.
            schema = listed[name].input_schema
            jsonschema.Draft202012Validator(schema).validate(arguments)
            for key, value in arguments.items():
                if key != "code" and isinstance(value, str) and value in SAMPLE_FORMATS:
                    described = schema["properties"][key]
                    if "$ref" in described:
                        described = schema["$defs"][described["$ref"].rsplit("/", 1)[1]]
                    assert SAMPLE_FORMATS[value] in described["description"], (name, key)
            result = await client.call_tool(name, arguments)
            assert not result.is_error, f"{name}: {result.content}"
            assert result.content and result.content[0].type == "text"
            structured = result.structured_content or {}
            if name == "start_machine":
                found["handle"] = structured["machineHandle"]
            if name == "verify":
                found["report"] = structured["report"]
                assert structured["report"]["verdict"] == "passed"
