"""The viewer document itself: one self-contained HTML file that cannot reach the network."""

from __future__ import annotations

import re

from statekit.render.app import APP_URI, app_html


def test_single_self_contained_document() -> None:
    html = app_html()
    assert APP_URI.startswith("ui://")
    assert html.startswith("<!doctype html>")
    assert html.count("<script>") == 1 and html.count("<style>") == 1
    assert "/*@SCRIPT@*/" not in html and "/*@STYLE@*/" not in html
    # Nothing is loaded from anywhere: no src/href URLs, no fetch or sockets, a closed CSP.
    assert not re.search(r"<[a-z][^<>]*\s(?:src|href)\s*=", html)
    for call in ("fetch(", "XMLHttpRequest", "WebSocket", "EventSource", "sendBeacon", "import("):
        assert call not in html
    assert "default-src 'none'" in html and "connect-src 'none'" in html


def test_labels_never_become_markup() -> None:
    html = app_html()
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert sink not in html
    assert "textContent" in html
