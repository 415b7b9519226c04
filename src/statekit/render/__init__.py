"""Drawing statecharts: DOT for Graphviz-compatible engines, SVG and PNG, and the MCP App."""

from statekit.render.dot import DIRECTIONS, DrawOptions, machine_dot
from statekit.render.draw import (
    PngImage,
    parent_node_ids,
    parent_view,
    png_size,
    render_parent_pngs,
    render_png,
    render_svg,
)
from statekit.render.engine import LayoutEngine, RenderUnavailable, find_engine

__all__ = [
    "DIRECTIONS",
    "DrawOptions",
    "LayoutEngine",
    "PngImage",
    "RenderUnavailable",
    "find_engine",
    "machine_dot",
    "parent_node_ids",
    "parent_view",
    "png_size",
    "render_parent_pngs",
    "render_png",
    "render_svg",
]
