"""The interactive machine viewer (an MCP App): one self-contained HTML document.

The sources live next to this file as `viewer.html`, `viewer.css` and `viewer.js`, so each can be
read and linted on its own; `app_html()` inlines the style and script into the HTML, because an
MCP App must be a single document that loads nothing from the network.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

#: Stable: saved tool results keep pointing here, so newer bundles must keep decoding old results.
APP_URI = "ui://statekit/machine-viewer.html"
APP_TITLE = "statekit machine viewer"
APP_DESCRIPTION = (
    "Interactive, read-only statechart viewer for visualize_machine results: drill-in, "
    "breadcrumbs, pan/select/simulate modes, zoom and fit-to-view."
)


def _source(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


@cache
def app_html() -> str:
    """The viewer as one HTML5 document with its CSS and JavaScript inlined."""
    page = _source("viewer.html")
    style = _source("viewer.css")
    script = _source("viewer.js")
    if "</script" in script.lower() or "</style" in style.lower():
        raise ValueError("the inlined viewer sources must not close their own tags")
    return page.replace("/*@STYLE@*/", style).replace("/*@SCRIPT@*/", script)


def standalone_html(tool_result: dict[str, Any]) -> str:
    """The viewer as a page of its own, showing `tool_result` (a CallToolResult-shaped dict).

    The result rides along as an inert `application/json` script; `<` is escaped so no label
    can close that element, and the page's CSP still forbids any network access.
    """
    payload = json.dumps(tool_result, ensure_ascii=False).replace("<", "\\u003c")
    data = f'<script type="application/json" id="statekit-result">{payload}</script>\n'
    page = app_html()
    marker = "<script>"
    at = page.index(marker)
    return page[:at] + data + page[at:]
