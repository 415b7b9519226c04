"""Imports every tool module so that each registers its tools (one name per tool family)."""

import importlib

TOOL_MODULES = (
    "machine_tools",
    "path_tools",
    "hosted_tools",
    "verify_tools",
    "workspace_tools",
    "visualize_tools",
    "convert_tools",
    "change_tools",
    "extract_tools",
    "live_tools",
    "property_tools",
)

for _module in TOOL_MODULES:
    importlib.import_module(f"statekit.tools.{_module}")
