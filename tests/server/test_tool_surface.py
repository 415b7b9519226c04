"""The tool surface agents pay for on every turn: its size, and the truth of what it claims.

`tools/list` of the default server is held to a budget in bytes of compact JSON and in tokens of
a named tokenizer (tiktoken's o200k_base), and each claim the listing and the instructions make
is derived from the registry here, so it cannot drift: which tools change state (annotations ->
instructions), which formats a `machine` argument accepts (the format registry), how an error
reads. Each check also runs on a planted drift and must catch it.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from statekit.formats import _ALIASES, _FORMATS, formats, register_format
from statekit.server import create_server
from statekit.server.catalog import list_tools_result, server_instructions
from statekit.tools import registry
from statekit.tools.arguments import readable_format_titles
from token_count import ENCODING, count_tokens

#: The budget of the default server's tools/list (compact JSON of its `tools`).
BUDGET_BYTES = 25 * 1024
#: The same budget in o200k_base tokens (about 4 bytes a token for JSON schema text).
BUDGET_TOKENS = 6_400
#: The instructions of e361e51, which said every tool was read-only.
OLD_INSTRUCTIONS = (
    "statekit tools work on statecharts: XState v5 machine configs given as JSON objects, or "
    "machine source text. Every tool is read-only and returns structured content; a failure is "
    "an isError result whose content carries a stable error code and a message."
)
#: Where tools take a machine: property names, plus `$defs.machine` and verify's `model.content`.
MACHINE_PROPERTIES = frozenset({"machine", "before", "after", "original", "edited"})


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


async def listed_tools() -> tuple[list[dict[str, Any]], str]:
    """The default server's tools/list, as the SDK's client receives it, and its instructions."""
    async with Client(create_server(in_process=True)) as client:
        listed = await client.list_tools()
        instructions = client.instructions
    tools = [tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in listed.tools]
    return tools, instructions or ""


async def test_the_tool_list_fits_its_budget_in_bytes_and_tokens() -> None:
    tools, _ = await listed_tools()
    text = compact(tools)
    size, tokens = len(text.encode("utf-8")), count_tokens(text)
    print(f"\ntools/list: {len(tools)} tools, {size} bytes of compact JSON, {tokens} {ENCODING} tokens "
          f"(budget {BUDGET_BYTES} bytes, {BUDGET_TOKENS} tokens)")
    for tool in sorted(tools, key=lambda t: -len(compact(t)))[:5]:
        print(f"  {tool['name']}: {len(compact(tool))} bytes")
    assert {tool["name"] for tool in tools} == set(registry.tools())
    assert size <= BUDGET_BYTES, f"tools/list is {size} bytes, over its {BUDGET_BYTES}-byte budget"
    assert tokens <= BUDGET_TOKENS, f"tools/list is {tokens} tokens, over its {BUDGET_TOKENS}-token budget"


def test_the_budget_test_measures_what_it_says() -> None:
    """The e361e51 listing (complete output schemas, the patch catalog in both patch tools) was
    about 76 KB: the same measure on the complete schemas must be far over the budget."""
    specs = registry.tools()
    complete = [{**tool.model_dump(by_alias=True, exclude_none=True, mode="json"),
                 "inputSchema": {**specs[tool.name].input_schema, "properties": {
                     **specs[tool.name].input_schema["properties"], **specs[tool.name].argument_schemas}},
                 "outputSchema": specs[tool.name].output_schema}
                for tool in list_tools_result(specs).tools]
    assert len(compact(complete).encode()) > 2 * BUDGET_BYTES


# --- claims derived from the registry -----------------------------------------------------------


def machine_descriptions(tool: Mapping[str, Any]) -> list[tuple[str, str]]:
    """`(where, description)` of every machine argument a listed tool takes."""
    schema = tool["inputSchema"]
    found: list[tuple[str, str]] = []
    for name, prop in schema.get("properties", {}).items():
        if name in MACHINE_PROPERTIES and "$ref" not in prop:
            found.append((f"{tool['name']}.{name}", prop.get("description", "")))
    if "machine" in schema.get("$defs", {}):
        found.append((f"{tool['name']}.$defs.machine", schema["$defs"]["machine"].get("description", "")))
    content = schema.get("properties", {}).get("model", {}).get("properties", {}).get("content")
    if content is not None:
        found.append((f"{tool['name']}.model.content", content.get("description", "")))
    return found


def claim_problems(tools: list[dict[str, Any]], instructions: str) -> list[str]:
    """Every claim of the listing and the instructions that the registry contradicts."""
    specs = registry.tools()
    problems: list[str] = []
    changing = sorted(name for name, spec in specs.items() if not spec.annotations.read_only)
    if f"These tools change state: {', '.join(changing)};" not in instructions:
        problems.append(f"instructions do not name exactly the tools that change state ({', '.join(changing)})")
    if "Every tool is read-only" in instructions or "Every tool only reads" in instructions:
        problems.append("instructions say every tool is read-only")
    for tool in tools:
        declared = specs[tool["name"]].annotations
        hints = tool.get("annotations", {})
        if hints.get("readOnlyHint") is not declared.read_only or hints.get("openWorldHint") is not declared.open_world:
            problems.append(f"{tool['name']}: listed annotations {hints} are not its registry's")
    titles = readable_format_titles()
    machine_args = [pair for tool in tools for pair in machine_descriptions(tool)]
    if not machine_args:
        problems.append("no machine argument found")
    for where, description in machine_args:
        missing = [title for title in titles if title not in description]
        if missing:
            problems.append(f"{where} does not name the formats {', '.join(missing)}")
    return problems


async def test_every_claim_of_the_listing_is_the_registrys() -> None:
    tools, instructions = await listed_tools()
    assert claim_problems(tools, instructions) == []
    # What the issue found false on e361e51, now true:
    by_name = {tool["name"]: tool for tool in tools}
    verify = by_name["verify"]["annotations"]
    assert verify == {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}
    for name in ("start_machine", "send_events", "stop_machine"):
        assert by_name[name]["annotations"]["readOnlyHint"] is False, name
    assert by_name["get_machine_snapshot"]["annotations"]["readOnlyHint"] is True
    for title in ("XState JS/TS source", "SCXML", "Mermaid", "D2", "XGraph", "DigraphDef", "XState YAML"):
        assert title in by_name["simulate_machine"]["inputSchema"]["properties"]["machine"]["description"]


async def test_a_planted_drift_in_any_claim_is_caught() -> None:
    tools, instructions = await listed_tools()
    # The instructions e361e51 shipped.
    assert any("change state" in p for p in claim_problems(tools, OLD_INSTRUCTIONS))
    # An instruction text computed from annotations that were forgotten.
    forgot = {name: dataclasses.replace(spec, annotations=registry.ToolAnnotations())
              for name, spec in registry.tools().items()}
    assert claim_problems(tools, server_instructions(forgot))
    # verify listed as read-only again.
    relisted = [{**tool, "annotations": {"readOnlyHint": True, "openWorldHint": False}} if tool["name"] == "verify"
                else tool for tool in tools]
    assert any(p.startswith("verify:") for p in claim_problems(relisted, instructions))
    # A machine description that names only JSON and YAML, as nine tools did.
    narrowed = json.loads(compact(tools).replace("XState JS/TS source", "JSON"))
    assert any("XState JS/TS source" in p for p in claim_problems(narrowed, instructions))
    # A format registered after the descriptions were written: they no longer name every format.
    register_format("planted-bpmn", read=lambda value: (_ for _ in ()).throw(ValueError()), title="BPMN")
    try:
        assert any("BPMN" in p for p in claim_problems(tools, instructions))
    finally:
        del _FORMATS["planted-bpmn"]
    assert "planted-bpmn" not in formats() and "planted-bpmn" not in _ALIASES


# --- error results a model can read -------------------------------------------------------------


@pytest.mark.parametrize(("name", "arguments", "code", "envelope"), [
    ("simulate_machine", {"machine": {"initial": "a", "states": {"a": {}}}}, "invalid_input", False),
    ("convert_machine", {"machine": {"initial": "a", "states": {"a": {}}}, "to": "bpmn"}, "invalid_input", False),
    ("get_stately_project", {"projectId": "../etc"}, "invalid_input", True),
])
async def test_an_error_result_reads_as_a_sentence_with_the_structured_error_alongside(
    name: str, arguments: dict[str, Any], code: str, envelope: bool,
) -> None:
    async with Client(create_server(in_process=True)) as client:
        result = await client.call_tool(name, arguments)
    assert result.is_error is True and result.structured_content is not None
    error = result.structured_content["error"] if envelope else result.structured_content
    assert error["code"] == code and isinstance(error["message"], str)
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    sentence, payload = block.text.split("\n", 1)
    assert sentence.startswith(f"Error ({code}): {error['message']}") and sentence.endswith((".", "?", "!"))
    assert json.loads(payload) == result.structured_content
