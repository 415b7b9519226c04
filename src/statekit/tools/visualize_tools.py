"""`visualize_machine`: PNG fallbacks per parent state plus the graph for the interactive app.

The result has two halves that report their own status, so one can fail and the other still
serve: `interactive` (the canonical XGraph JSON string the MCP App reads) and `pngFallback`
(image metadata; the PNG bytes travel as native MCP image content, under `content_key`).
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any

from statekit.errors import ToolError
from statekit.model.core import MachineModel
from statekit.render import (
    DIRECTIONS,
    PngImage,
    RenderUnavailable,
    find_engine,
    parent_node_ids,
    parent_view,
    render_parent_pngs,
)
from statekit.render.app import APP_URI
from statekit.render.edges import drawn_edges
from statekit.render.layout import LaidOutDrawing, lay_out
from statekit.render.viewer_layout import viewer_layouts
from statekit.render.xgraph_view import machine_xgraph
from statekit.tools.arguments import MACHINE_ARGUMENT
from statekit.tools.inputs import load_model
from statekit.tools.registry import ToolSpec, register

SCHEMA_VERSION = "2.0"
#: The result key whose image blocks the server sends as native MCP content.
IMAGES_KEY = "_images"


@dataclass
class VisualizeLimits:
    """Caps on what one result carries; change them with `configure_limits`."""

    #: The XGraph JSON string, in UTF-8 bytes; a bigger graph makes `interactive` unavailable.
    max_graph_bytes: int = 500_000
    #: PNG images (and their metadata entries) per result; parents past it are left out.
    max_png_images: int = 100


LIMITS = VisualizeLimits()


def configure_limits(*, max_graph_bytes: int | None = None, max_png_images: int | None = None) -> None:
    """Change the caps for every later call (a server or CLI option sets them once at start)."""
    if max_graph_bytes is not None:
        if max_graph_bytes <= 0:
            raise ValueError("max_graph_bytes must be positive")
        LIMITS.max_graph_bytes = max_graph_bytes
    if max_png_images is not None:
        if max_png_images < 0:
            raise ValueError("max_png_images must not be negative")
        LIMITS.max_png_images = max_png_images


_STATUS: dict[str, Any] = {"type": "string", "enum": ["ready", "unavailable"]}

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "machine": MACHINE_ARGUMENT,
        "direction": {
            "type": "string",
            "enum": list(DIRECTIONS),
            "default": "down",
            "description": "Direction of flow.",
        },
        "parentNodeIds": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Parent state ids to draw (default: all).",
        },
    },
    "required": ["machine"],
    "additionalProperties": False,
}

OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "schemaVersion": {"type": "string", "const": SCHEMA_VERSION},
        "interactive": {
            "type": "object",
            "properties": {
                "status": _STATUS,
                "graphJson": {
                    "type": "string",
                    "description": "The canonical XGraph JSON ({nodes, edges}) as a string.",
                },
                "byteLength": {"type": "integer", "minimum": 0},
                "reason": {"type": "string"},
                "layoutJson": {
                    "type": "string",
                    "description": "The layout of each parent's view as the PNG draws it (JSON "
                    "string: {version, direction, views: {parentId: {frames, states, edges, ...}}}).",
                },
                "layoutReason": {
                    "type": "string",
                    "description": "Why layoutJson is missing (the viewer then lays levels out itself).",
                },
            },
            "required": ["status"],
            "additionalProperties": False,
        },
        "pngFallback": {
            "type": "object",
            "properties": {
                "status": _STATUS,
                "images": {
                    "type": "array",
                    "description": "One entry per image content block, in the same order.",
                    "items": {
                        "type": "object",
                        "properties": {
                            "parentNodeId": {"type": "string"},
                            "width": {"type": "integer", "minimum": 1},
                            "height": {"type": "integer", "minimum": 1},
                        },
                        "required": ["parentNodeId", "width", "height"],
                        "additionalProperties": False,
                    },
                },
                "omittedParentNodeIds": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Parents not drawn because of the image cap.",
                },
                "reason": {"type": "string"},
            },
            "required": ["status", "images"],
            "additionalProperties": False,
        },
    },
    "required": ["schemaVersion", "interactive", "pngFallback"],
    "additionalProperties": False,
}


def _interactive(graph: dict[str, Any], layouts: dict[str, Any] | None, layout_reason: str | None) -> dict[str, Any]:
    text = json.dumps(graph, ensure_ascii=False, separators=(",", ":"))
    size = len(text.encode("utf-8"))
    if size > LIMITS.max_graph_bytes:
        return {
            "status": "unavailable",
            "byteLength": size,
            "reason": f"the graph is {size} bytes, over the {LIMITS.max_graph_bytes}-byte limit",
        }
    result: dict[str, Any] = {"status": "ready", "graphJson": text, "byteLength": size}
    if layouts is not None:
        layout_text = json.dumps(layouts, ensure_ascii=False, separators=(",", ":"))
        layout_size = len(layout_text.encode("utf-8"))
        if size + layout_size <= LIMITS.max_graph_bytes:
            result["layoutJson"] = layout_text
        else:
            layout_reason = (
                f"the graph and its layout are {size + layout_size} bytes, over the "
                f"{LIMITS.max_graph_bytes}-byte limit"
            )
    if "layoutJson" not in result and layout_reason is not None:
        result["layoutReason"] = layout_reason
    return result


#: Parent views laid out for the viewer beyond those drawn as PNGs (parentNodeIds, image cap).
MAX_EXTRA_LAYOUTS = 100


def _viewer_drawings(
    model: MachineModel, images: list[PngImage], direction: str
) -> dict[str, LaidOutDrawing]:
    """The layout of every parent's view: the PNGs' own, plus the parents not drawn as PNGs."""
    drawings = {
        image.parent_node_id: image.drawing
        for image in images
        if image.parent_node_id is not None and image.drawing is not None
    }
    engine = find_engine()
    missing = [parent for parent in parent_node_ids(model) if parent not in drawings][:MAX_EXTRA_LAYOUTS]
    if engine is not None and missing:
        edges = drawn_edges(model)
        for parent in missing:
            drawings[parent] = lay_out(model, parent_view(model, parent, direction), engine, (), edges=edges)
    return drawings


def _requested_parents(arguments: dict[str, Any], available: list[str]) -> list[str]:
    requested = arguments.get("parentNodeIds")
    if requested is None:
        return available
    unknown = [item for item in requested if item not in available]
    if unknown:
        shown = ", ".join(repr(item[:80]) for item in unknown[:5])
        raise ToolError(
            "invalid_input",
            f"parentNodeIds must name states with direct children; not such states: {shown}",
            {"parentNodeIds": unknown[:20], "parents": available[:50]},
        )
    return list(dict.fromkeys(requested))


def visualize(arguments: dict[str, Any]) -> dict[str, Any]:
    direction = arguments.get("direction", "down")
    model = load_model(arguments["machine"])
    parents = _requested_parents(arguments, parent_node_ids(model))
    drawn, omitted = parents[: LIMITS.max_png_images], parents[LIMITS.max_png_images :]
    png: dict[str, Any]
    blocks: list[dict[str, str]] = []
    graph = machine_xgraph(model)
    layouts: dict[str, Any] | None = None
    layout_reason: str | None = None
    try:
        images = render_parent_pngs(model, drawn, direction=direction)
    except RenderUnavailable as error:
        png = {"status": "unavailable", "images": [], "reason": str(error)}
        layout_reason = str(error)
    else:
        try:
            drawings = _viewer_drawings(model, images, direction)
            layouts = viewer_layouts(model, graph, drawings, drawn_edges(model), direction)
        except RenderUnavailable as error:
            layout_reason = str(error)
        png = {
            "status": "ready",
            "images": [
                {"parentNodeId": image.parent_node_id, "width": image.width, "height": image.height}
                for image in images
            ],
        }
        blocks = [
            {"type": "image", "data": base64.b64encode(image.data).decode("ascii"),
             "mimeType": "image/png"}
            for image in images
        ]
        if not images and arguments.get("parentNodeIds") is None:
            png["reason"] = "the machine has no state with child states to draw"
    if omitted:
        png["omittedParentNodeIds"] = omitted
    return {
        "schemaVersion": SCHEMA_VERSION,
        "interactive": _interactive(graph, layouts, layout_reason),
        "pngFallback": png,
        IMAGES_KEY: blocks,
    }


def summarize(result: dict[str, Any]) -> str:
    interactive = result["interactive"]
    png = result["pngFallback"]
    lines = []
    if interactive["status"] == "ready":
        graph = json.loads(interactive["graphJson"])
        # The machine root is the graph's top node, not a state anyone counts.
        states = sum(1 for node in graph["nodes"] if node.get("parentId") is not None)
        lines.append(f"Interactive graph ready: {states} states, {len(graph['edges'])} transitions.")
    else:
        lines.append(f"Interactive graph unavailable: {interactive.get('reason', '')}")
    if png["status"] == "ready":
        drawn = ", ".join(image["parentNodeId"] for image in png["images"][:10])
        more = f" and {len(png['images']) - 10} more" if len(png["images"]) > 10 else ""
        lines.append(f"{len(png['images'])} PNG image(s), one per parent state: {drawn}{more}.")
    else:
        lines.append(f"PNG images unavailable: {png.get('reason', '')}")
    if png.get("omittedParentNodeIds"):
        lines.append(f"{len(png['omittedParentNodeIds'])} parent(s) not drawn (image cap).")
    return "\n".join(lines)


register(
    ToolSpec(
        name="visualize_machine",
        title="Visualize a state machine",
        description=(
            "Use to see or show a machine: one PNG per parent state and, in MCP Apps hosts, an "
            "interactive viewer (drill-in, simulate, zoom); interactive.graphJson is its XGraph."
        ),
        input_schema=INPUT_SCHEMA,
        output_schema=OUTPUT_SCHEMA,
        function=visualize,
        summarize=summarize,
        content_key=IMAGES_KEY,
        meta={"ui": {"resourceUri": APP_URI}},
    )
)
