"""One hop from a tool's name to its code: `registry.TOOL_MODULES` names the module of every tool."""

from __future__ import annotations

import pytest

from statekit import tools
from statekit.tools import registry


def test_the_index_names_the_module_of_every_built_in_tool() -> None:
    registered = tools.tools()
    built_in = {name: spec for name, spec in registered.items() if spec.function.__module__.startswith("statekit.")}
    assert set(built_in) == set(registry.TOOL_MODULES)
    for name, spec in built_in.items():
        assert spec.function.__module__ == f"statekit.tools.{registry.TOOL_MODULES[name]}", name


def test_a_tool_spec_takes_keywords_only() -> None:
    spec = tools.get("validate_machine")
    with pytest.raises(TypeError):
        registry.ToolSpec(spec.name, spec.title, spec.description, spec.input_schema,  # type: ignore[misc]
                          spec.output_schema, spec.function)
