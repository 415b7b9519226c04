"""The machine viewer (MCP App) in headless Chromium, driven by Playwright from Node.

Needs node, `npm ci` in tests/browser (playwright-core) and Debian's chromium. Locally the test
skips when one is missing; under CI=true a missing piece fails it, so CI cannot pass silently.
Screenshots land in test-artifacts/browser/.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from needs import missing
from statekit import tools
from statekit.model import parse_machine
from statekit.render.app import app_html
from statekit.render.xgraph_view import machine_xgraph

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "render"))
from machines import PLAYER, chain_machine, many_loops, wide_parallel, xstate_suite_machines

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")


def _missing() -> str | None:
    if shutil.which("node") is None:
        return "node is not installed"
    if not (HERE / "node_modules" / "playwright-core").is_dir():
        return "run `npm ci` in tests/browser"
    if not Path(CHROMIUM).exists():
        return f"{CHROMIUM} is missing (apt-get install chromium)"
    return None


def _tool_result(structured: dict[str, Any]) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": "drawn"}], "structuredContent": structured}


#: Machines whose every level the browser checks for labels over states or other labels: the
#: largest of XState's own test suite (written by nobody here) and two shapes that used to fail.
def _laid_out_machines() -> dict[str, dict[str, Any]]:
    from statekit.formats import write_format

    largest = sorted(xstate_suite_machines(), key=lambda item: -len(item[1].nodes))[:6]
    machines = {name: write_format(model, "xstate-json")[1] for name, model in largest}
    machines["many_loops"] = many_loops()
    machines["wide_parallel"] = wide_parallel(8)
    return machines


def _laid_out_results() -> dict[str, Any]:
    results = {}
    for name, machine in _laid_out_machines().items():
        result = tools.call("visualize_machine", {"machine": machine})
        result.pop("_images")
        assert "layoutJson" in result["interactive"], result["interactive"].get("layoutReason")
        results[name] = _tool_result(result)
    return results


def _fixtures() -> dict[str, Any]:
    full = tools.call("visualize_machine", {"machine": PLAYER})
    full.pop("_images")
    graph_json = full["interactive"]["graphJson"]
    unavailable = {
        **full,
        "interactive": {"status": "unavailable", "reason": "the graph is 9 bytes, over the 1-byte limit"},
    }
    big_graph = json.dumps(machine_xgraph(parse_machine(chain_machine(500))))
    big = {
        "schemaVersion": "2.0",
        "interactive": {"status": "ready", "graphJson": big_graph, "byteLength": len(big_graph)},
        "pngFallback": {"status": "unavailable", "images": [], "reason": "not drawn here"},
    }
    return {
        "appHtml": app_html(),
        "arguments": {"machine": PLAYER},
        "results": {
            "v2": _tool_result(full),
            "v1": _tool_result({"schemaVersion": "1.0", "graphJson": graph_json}),
            "unversioned_graph": _tool_result({"graph": json.loads(graph_json)}),
            "unversioned_graph_string": _tool_result({"graph": graph_json}),
            "unversioned_error": _tool_result({"graphError": "layout exploded"}),
            "v2_unavailable": _tool_result(unavailable),
            "saved_without_graph": _tool_result({"images": 3}),
            "not_structured": {"content": [{"type": "text", "text": "old"}]},
            "big": _tool_result(big),
        },
        "laidOut": _laid_out_results(),
    }


def test_viewer_in_headless_chromium(tmp_path: Path) -> None:
    absent = _missing()
    if absent is not None:
        missing("the browser test's prerequisites", absent)
    fixtures = tmp_path / "fixtures.json"
    fixtures.write_text(json.dumps(_fixtures()), encoding="utf-8")
    artifacts = ROOT / "test-artifacts" / "browser"
    completed = subprocess.run(
        ["node", str(HERE / "viewer_check.mjs"), str(fixtures), str(artifacts)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    report = completed.stdout + completed.stderr
    assert completed.returncode == 0, report
    assert "not ok" not in report and " passed, 0 failed" in report, report
