"""Reference documents the tool listing points to instead of carrying them (MCP resources).

A tool's description stays short; what a model needs only now and then (every field of every
patch operation, a tool's complete result schema) is one `resources/read` away under a
`statekit://reference/...` URI. The server serves every document here
(`statekit.server.reference_resources`); the CLI and the Python API read them with `document`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass

#: Every field of every patch operation (`apply_machine_patches`, `review_machine_implementation`).
PATCHES_URI = "statekit://reference/patches.schema.json"
#: Every tool's complete input and output schemas, as the call pipeline checks them.
TOOL_SCHEMAS_URI = "statekit://reference/tool-schemas.json"


@dataclass(frozen=True)
class Reference:
    """One reference document: what it is and how to build its text."""

    uri: str
    title: str
    description: str
    mime_type: str
    build: Callable[[], str]


def _patches() -> str:
    from statekit.analysis.patch_catalog import patches_json_schema

    return json.dumps(patches_json_schema(), indent=1)


def _tool_schemas() -> str:
    from statekit.tools.registry import tools

    return json.dumps({name: {"inputSchema": spec.input_schema,
                              **({"argumentSchemas": dict(spec.argument_schemas)} if spec.argument_schemas else {}),
                              "outputSchema": spec.output_schema}
                       for name, spec in sorted(tools().items())}, indent=1)


REFERENCES: Mapping[str, Reference] = {
    reference.uri: reference
    for reference in (
        Reference(PATCHES_URI, "Machine patch operations",
                  "JSON Schema of a patch list: every operation of apply_machine_patches with its fields.",
                  "application/schema+json", _patches),
        Reference(TOOL_SCHEMAS_URI, "Complete tool schemas",
                  "Every tool's complete input schema and result schema (tools/list carries a summary of "
                  "each result schema).", "application/json", _tool_schemas),
    )
}


def document(uri: str) -> str:
    """The text of the reference document at `uri` (KeyError for an unknown URI)."""
    return REFERENCES[uri].build()
