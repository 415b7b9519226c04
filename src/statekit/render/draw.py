"""Drawing a machine as SVG or PNG, whole or one parent state at a time.

This is the reusable entry point: the `visualize_machine` tool, the `statekit render` command
and any later tool that draws machines (hosted machines, for one) all call these functions.
"""

from __future__ import annotations

import contextvars
import struct
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from statekit.budget import check_budget, report_progress
from statekit.model.core import MachineModel
from statekit.render.dot import DrawOptions
from statekit.render.edges import DrawnEdge, drawn_edges
from statekit.render.engine import LayoutEngine, RenderUnavailable, find_engine
from statekit.render.layout import LaidOutDrawing, lay_out

#: PNG resolution: twice Graphviz's 72 dpi, so 12 pt labels are 24 px high and stay legible.
PNG_DPI = 144
#: Largest PNG side in inches at PNG_DPI (4032 px); bigger drawings are scaled down to fit.
PNG_MAX_INCHES = 28
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@dataclass(frozen=True)
class PngImage:
    data: bytes
    width: int
    height: int
    #: The parent state this image shows (None for a whole-machine drawing).
    parent_node_id: str | None = None
    #: The layout the image shows (positions of states, arrows and labels), for the viewer.
    drawing: LaidOutDrawing | None = field(default=None, compare=False, repr=False)


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from the PNG header (IHDR is always the first chunk)."""
    if len(data) < 24 or not data.startswith(_PNG_SIGNATURE) or data[12:16] != b"IHDR":
        raise RenderUnavailable("the engine did not produce a PNG")
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)


def _engine(engine: LayoutEngine | None) -> LayoutEngine:
    chosen = engine or find_engine()
    if chosen is None:
        raise RenderUnavailable(
            "no layout engine: install statekit's render extra (graphviz-pure) or Graphviz"
        )
    return chosen


def render_svg(
    model: MachineModel, options: DrawOptions | None = None, *, engine: LayoutEngine | None = None
) -> str:
    """The machine (or the part `options` selects) as a standalone SVG document."""
    drawing = lay_out(model, options or DrawOptions(), _engine(engine), ("svg",))
    return drawing.outputs["svg"].decode("utf-8")


def render_png(
    model: MachineModel,
    options: DrawOptions | None = None,
    *,
    engine: LayoutEngine | None = None,
    dpi: int = PNG_DPI,
    edges: tuple[DrawnEdge, ...] | None = None,
) -> PngImage:
    """The machine (or the part `options` selects) as PNG bytes with their pixel size."""
    arguments = (f"-Gdpi={dpi}", f"-Gsize={PNG_MAX_INCHES},{PNG_MAX_INCHES}")
    drawing = lay_out(model, options or DrawOptions(), _engine(engine), ("png",), edges=edges, extra_args=arguments)
    data = drawing.outputs["png"]
    width, height = png_size(data)
    root = options.root_id if options is not None else None
    return PngImage(data, width, height, root, drawing)


def parent_node_ids(model: MachineModel) -> list[str]:
    """Every state with direct children, in document order (the root first)."""
    return [node.id for node in model.root.walk() if node.children]


def parent_view(model: MachineModel, parent_id: str, direction: str = "down") -> DrawOptions:
    """One parent and its direct children; a parallel parent also shows its regions' states."""
    depth = 2 if model.nodes[parent_id].type == "parallel" else 1
    return DrawOptions(direction=direction, root_id=parent_id, depth=depth)


def render_parent_pngs(
    model: MachineModel,
    parent_ids: Sequence[str],
    *,
    direction: str = "down",
    engine: LayoutEngine | None = None,
    workers: int = 2,
) -> list[PngImage]:
    """One PNG per parent, in the order given; engine runs overlap on `workers` threads."""
    chosen = _engine(engine)
    views = [parent_view(model, parent_id, direction) for parent_id in parent_ids]
    edges = drawn_edges(model)  # resolved once for every image

    def draw(view: DrawOptions) -> PngImage:
        check_budget()
        image = render_png(model, view, engine=chosen, edges=edges)
        report_progress(views.index(view) + 1, len(views), f"drew {view.root_id}")
        return replace(image, parent_node_id=view.root_id)

    if len(views) <= 1 or workers <= 1:
        return [draw(view) for view in views]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        # Each drawing runs in the caller's context, so the call's budget reaches the pool threads.
        contexts = [contextvars.copy_context() for _ in views]  # copied here, in the caller's thread
        return list(pool.map(lambda context, view: context.run(draw, view), contexts, views))
