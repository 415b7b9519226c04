"""Fuzzing every tool through the one pipeline (size -> input schema -> tool -> output schema).

Each tool gets arguments drawn from its own input schema (right types, right names, with
mangled machines and arbitrary values mixed in) and sometimes plain garbage. The only
acceptable outcomes: a result that passed the output schema, or a `ToolError` with a code
from the closed set that is not `internal_error` (a tool bug or a broken output schema).

Bounded: `STATEKIT_FUZZ_EXAMPLES` examples per tool (default 25 here), each call under a
2-second budget and a 256 KiB output limit, so slow inputs end as `deadline_exceeded`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from statekit.errors import ERROR_CODES, ToolError
from statekit.server.calls import ToolCaller
from statekit.tools import registry
from statekit.tools.registry import ToolContext

from .fuzz_strategies import PLAYER, documents, json_data, seed_documents

EXAMPLES = max(5, int(os.environ.get("STATEKIT_FUZZ_EXAMPLES", "60")) // 2)
SEEDS = [d for d in seed_documents() if isinstance(d, str)]
MACHINES = st.one_of(st.just(PLAYER), documents(SEEDS))
EVENTS = st.lists(st.one_of(st.sampled_from(["PLAY", "MUTE", "GO", "*", ""]), json_data), max_size=6)
#: Slow or resource-bound tools get fewer examples (they draw PNGs or start sessions).
FEWER = {"visualize_machine": 4, "visualize_stately_machine": 4, "verify": 8}


def value_for(name: str, schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values for one argument: typed by its schema, machine-like where the name says so."""
    if name in ("machine", "before", "after", "original", "edited", "model"):
        return MACHINES
    if name == "code":
        return st.one_of(documents(SEEDS), st.just(SEEDS[0]))
    if name == "events":
        return EVENTS
    kinds = schema.get("type")
    if "enum" in schema:
        return st.one_of(st.sampled_from(schema["enum"]), json_data)
    if kinds == "string":
        return st.one_of(st.text(max_size=30), st.sampled_from(["paused", "#player.paused", "a", "..", "/etc/passwd"]))
    if kinds == "integer":
        return st.one_of(st.integers(-3, 5000), json_data)
    if kinds == "boolean":
        return st.one_of(st.booleans(), json_data)
    if kinds == "array":
        return st.lists(json_data, max_size=4)
    return json_data


@st.composite
def arguments_for(draw: st.DrawFn, schema: dict[str, Any]) -> Any:
    if draw(st.integers(0, 9)) == 0:
        return draw(json_data)  # not even an object, sometimes
    properties: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))
    chosen = {name for name in properties if name in required or draw(st.booleans())}
    arguments = {name: draw(value_for(name, properties[name])) for name in sorted(chosen)}
    if draw(st.integers(0, 9)) == 0:
        arguments[draw(st.text(min_size=1, max_size=8))] = draw(json_data)
    return arguments


def tool_names() -> list[str]:
    return sorted(registry.tools())


@pytest.fixture(scope="module")
def caller(tmp_path_factory: pytest.TempPathFactory) -> ToolCaller:
    workspace = tmp_path_factory.mktemp("ws")
    (workspace / "m.json").write_text('{"initial": "a", "states": {"a": {}}}')
    context = ToolContext(workspace_root=str(workspace), call_seconds=2.0, max_output_bytes=256 * 1024,
                          store_url="memory://")
    return ToolCaller(catalog=registry.tools(), max_source_bytes=64 * 1024, context=context)


@pytest.mark.parametrize("name", tool_names())
def test_every_tool_gives_a_valid_result_or_a_coded_error(name: str, caller: ToolCaller) -> None:
    spec = registry.get(name)

    @settings(max_examples=FEWER.get(name, EXAMPLES), deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.function_scoped_fixture])
    @given(arguments=arguments_for(spec.input_schema))
    def run(arguments: Any) -> None:
        try:
            caller._run(spec, arguments if isinstance(arguments, dict) else {"_": arguments})
        except ToolError as error:
            assert error.code in ERROR_CODES, error.code
            assert error.code != "internal_error", f"{name}: {error.message} (cause: {error.__cause__!r})"

    run()


def test_the_workspace_of_the_fuzzer_is_not_the_repository(caller: ToolCaller) -> None:
    assert caller.context is not None and Path(caller.context.workspace_root).name.startswith("ws")
