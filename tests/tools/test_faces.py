"""The three faces accept and refuse exactly the same calls: every registered tool, the same
argument sets, through the Python API (`statekit.tools.call`), the CLI (`statekit call NAME JSON`:
in-process `main`, and a real process for a sample) and the MCP server (the SDK's real `Client`,
connected in-process, both protocol eras).

The argument sets are derived from each tool's schema, so a tool registered later is covered:
a good call, an unknown argument, a wrong type, a missing required argument and an oversized
call. Outcomes must be identical: the same result for a good call of a deterministic tool, else
the same `ok` / error code.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from mcp import Client

from statekit import tools
from statekit.cli import main as cli_main
from statekit.errors import ERROR_CODES, ToolError
from statekit.hosted.embedded import EmbeddedRegistry
from statekit.server import create_server
from statekit.tools import registry
from statekit.tools.registry import ToolContext
from tool_arguments import MACHINE, ROOT, schema_value
from tool_arguments import good_arguments as known_arguments

#: The size limit every face runs with here (small, so the oversized call stays cheap).
LIMIT = 256 * 1024

#: Schema-valid arguments by tool; one missing here gets its required arguments from its schema.
GOOD = known_arguments()
#: Values tried, in order, for a wrong-type argument: the first its schema refuses is used.
WRONG_VALUES: tuple[Any, ...] = (12345, "text", [1], True, {"a": 1})


def good_arguments(name: str) -> dict[str, Any]:
    if name in GOOD:
        return dict(GOOD[name])
    schema = tools.get(name).input_schema
    arguments = schema_value(schema)
    if "machine" in schema.get("properties", {}):
        arguments["machine"] = MACHINE
    return dict(arguments)


def argument_sets(name: str) -> dict[str, dict[str, Any]]:
    """The same cases for every face; each but `good` breaks one rule of the tool's schema."""
    schema = tools.get(name).input_schema
    good = good_arguments(name)
    cases = {"good": good, "unknown argument": {**good, "noSuchArgument": 1},
             "oversized": {**good, "padding": "x" * (LIMIT + 1)}}
    required = schema.get("required", [])
    if required:
        cases["missing required"] = {k: v for k, v in good.items() if k != required[0]}
    properties = schema.get("properties", {})
    target = required[0] if required else next(iter(properties), None)
    if target is not None:
        # The argument's schema with the tool's shared definitions, which its `$ref`s point into.
        validator = Draft202012Validator({**properties[target], "$defs": schema.get("$defs", {})})
        wrong = next(value for value in WRONG_VALUES if not validator.is_valid(value))
        cases["wrong type"] = {**good, target: wrong}
    return cases


def outcome(result: dict[str, Any] | None, code: str | None, name: str) -> tuple[str, Any]:
    """("error", code) or ("ok", the result as JSON; only `ok` for tools whose results vary)."""
    if code is not None:
        assert code in ERROR_CODES, code
        return "error", code
    assert result is not None
    spec = tools.get(name)
    if not spec.annotations.idempotent:  # a live machine's handle and expiry differ per call
        return "ok", None
    plain = {k: v for k, v in result.items() if k != spec.content_key}
    return "ok", json.loads(json.dumps(plain))


@pytest.fixture(scope="module")
def context(tmp_path_factory: pytest.TempPathFactory) -> ToolContext:
    base = tmp_path_factory.mktemp("faces")
    workspace = base / "ws"
    workspace.mkdir()
    (workspace / "turnstile.json").write_text(json.dumps(MACHINE))
    hosted = EmbeddedRegistry(base / "registry.sqlite")
    hosted.add_machine(hosted.create_project("Demo", project_id="demo"), "turnstile", MACHINE, machine_id="m1")
    return ToolContext(max_source_bytes=LIMIT, resource_provider=hosted, workspace_root=str(workspace))


@pytest.fixture
def cli_context(context: ToolContext, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # The CLI runs with the context the environment gives; here that is the test's host.
    monkeypatch.setattr(registry, "_default_context", context)
    yield


def python_face(name: str, arguments: dict[str, Any], context: ToolContext) -> tuple[str, Any]:
    try:
        return outcome(tools.call(name, arguments, context=context), None, name)
    except ToolError as error:
        return outcome(None, error.code, name)


def cli_face(name: str, arguments: dict[str, Any]) -> tuple[str, Any]:
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        status = cli_main(["call", name, json.dumps(arguments)])
    if status == 0:
        return outcome(json.loads(stdout.getvalue()), None, name)
    assert status == 2, stderr.getvalue()
    message = stderr.getvalue()
    assert message.startswith("error ["), message
    return outcome(None, message[len("error ["):message.index("]")], name)


def mcp_code(structured: dict[str, Any]) -> str:
    # The hosted tools answer in the resource envelope {error: {code, ...}}; the others flat.
    error = structured.get("error")
    return str(error["code"] if isinstance(error, dict) else structured["code"])


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
@pytest.mark.parametrize("name", sorted(tools.tools()))
async def test_every_face_gives_the_same_outcome(
    name: str, era: str, context: ToolContext, cli_context: None
) -> None:
    cases = argument_sets(name)
    server = create_server(tools=[name], max_source_bytes=LIMIT, context=context)
    async with Client(server, mode=era) as client:
        for case, arguments in cases.items():
            through_python = python_face(name, arguments, context)
            through_cli = cli_face(name, arguments)
            result = await client.call_tool(name, arguments)
            structured = result.structured_content
            assert structured is not None
            through_mcp = outcome(None, mcp_code(structured), name) if result.is_error else outcome(
                structured, None, name)
            assert through_python == through_cli == through_mcp, f"{name}: {case}"
            if case != "good":
                expected = "input_too_large" if case == "oversized" else "invalid_input"
                assert through_python == ("error", expected), f"{name}: {case}"


def test_the_refusal_says_what_is_wrong_in_every_face(context: ToolContext, cli_context: None) -> None:
    arguments = {"before": MACHINE, "after": MACHINE, "include_patches": True}
    with pytest.raises(ToolError) as caught:
        tools.call("diff_machines", arguments, context=context)
    assert "did you mean 'includePatches'" in caught.value.message
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
        assert cli_main(["call", "diff_machines", json.dumps(arguments)]) == 2
    assert caught.value.message in stderr.getvalue()


@pytest.mark.parametrize(("name", "case"), [("validate_machine", "good"), ("validate_machine", "unknown argument"),
                                            ("convert_machine", "wrong type"), ("simulate_machine", "missing required")])
def test_the_statekit_command_in_a_real_process(name: str, case: str, context: ToolContext) -> None:
    arguments = argument_sets(name)[case]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    completed = subprocess.run([sys.executable, "-m", "statekit.cli", "call", name, json.dumps(arguments)],
                               capture_output=True, text=True, timeout=120, env=env, check=False)
    through_process = (outcome(json.loads(completed.stdout), None, name) if completed.returncode == 0
                       else outcome(None, completed.stderr[len("error ["):completed.stderr.index("]")], name))
    assert through_process == python_face(name, arguments, context)
