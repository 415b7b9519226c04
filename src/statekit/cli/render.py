"""`statekit render FILE -o out.svg|out.png|out.html`: draw a machine file.

`add_commands(subparsers)` adds the subcommand to the `statekit` parser; the output format
follows the output file's extension. `.html` writes the interactive viewer as a standalone page.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from statekit.cli._input import read_source
from statekit.errors import ToolError
from statekit.render.dot import DIRECTIONS, DrawOptions, machine_dot
from statekit.render.draw import render_png, render_svg
from statekit.render.engine import RenderUnavailable

FORMATS = (".svg", ".png", ".html", ".dot")


def add_commands(subparsers: Any) -> None:
    """Add `render` to an argparse subparsers object (as returned by `add_subparsers`)."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "render",
        help="draw a machine as SVG, PNG, DOT or an interactive HTML page",
        description="Draw a machine file (JSON or YAML config; '-' reads stdin).",
    )
    parser.add_argument("file", help="machine file, or - for stdin")
    parser.add_argument("-o", "--output", required=True,
                        help="output file: .svg, .png, .dot or .html (interactive viewer)")
    parser.add_argument("--direction", choices=DIRECTIONS, default="down")
    parser.add_argument("--parent", metavar="STATE_ID", help="draw only this state's subtree")
    parser.add_argument("--depth", type=int, help="levels drawn below the root (deeper ones collapse)")
    parser.set_defaults(handler=run_render)


def run_render(args: argparse.Namespace) -> int:
    """Render `args.file` to `args.output`; returns the exit status (errors go to stderr)."""
    from statekit.tools.inputs import load_model

    output = Path(args.output)
    suffix = output.suffix.lower()
    try:
        if suffix not in FORMATS:
            raise ToolError("invalid_input", f"output must end in one of {', '.join(FORMATS)}")
        if args.depth is not None and args.depth < 0:
            raise ToolError("invalid_input", "--depth must not be negative")
        source = read_source(args.file)
        model = load_model(source)
        if args.parent is not None and args.parent not in model.nodes:
            raise ToolError("invalid_input", f"no state with id {args.parent!r}")
        options = DrawOptions(direction=args.direction, root_id=args.parent, depth=args.depth)
        if suffix == ".dot":
            output.write_text(machine_dot(model, options), encoding="utf-8")
        elif suffix == ".svg":
            output.write_text(render_svg(model, options), encoding="utf-8")
        elif suffix == ".png":
            output.write_bytes(render_png(model, options).data)
        else:
            output.write_text(_html(source, args.direction), encoding="utf-8")
    except ToolError as error:
        print(f"statekit render: {error.message}", file=sys.stderr)
        return 2
    except RenderUnavailable as error:
        print(f"statekit render: {error}", file=sys.stderr)
        return 1
    print(f"wrote {output}", file=sys.stderr)
    return 0


def _html(source: str, direction: str) -> str:
    from statekit.render.app import standalone_html
    from statekit.tools import call
    from statekit.tools.visualize_tools import IMAGES_KEY

    result = call("visualize_machine", {"machine": source, "direction": direction, "parentNodeIds": []})
    result.pop(IMAGES_KEY, None)
    return standalone_html({"content": [], "structuredContent": result})
