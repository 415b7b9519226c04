"""verify, generate_test_paths and coverage_report, with the real Python driver adapter."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest

from statekit import tools
from statekit.errors import ToolError
from statekit.hosted.embedded import EmbeddedRegistry
from statekit.tools.registry import ToolContext
from statekit.verify.junit import report_to_junit
from statekit.verify.python_adapter import PythonDriverAdapter, network_isolation_available

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "verify"
MACHINE = json.loads((EXAMPLES / "turnstile.json").read_text())

needs_isolation = pytest.mark.skipif(not network_isolation_available(), reason="unshare -rn is not available here")


def adapter(**options: Any) -> PythonDriverAdapter:
    return PythonDriverAdapter({"turnstile": "turnstile_driver"}, extra_paths=[str(EXAMPLES)], **options)


def verify(arguments: dict[str, Any], **context: Any) -> dict[str, Any]:
    return tools.call("verify", arguments, context=ToolContext(**context))["report"]


def test_without_an_adapter_verification_is_unavailable() -> None:
    with pytest.raises(ToolError) as caught:
        verify({"model": {"kind": "source", "content": MACHINE}})
    assert caught.value.code == "verification_unavailable"


def test_bad_model_argument_is_invalid_input_before_anything() -> None:
    for bad in ({"kind": "file"}, "machine", {"kind": "machine", "machineId": "../x"}):
        with pytest.raises(ToolError) as caught:
            verify({"model": bad}, verification_adapter=adapter())
        assert caught.value.code == "invalid_input"


@needs_isolation
def test_a_correct_system_passes_with_full_coverage() -> None:
    report = verify({"model": {"kind": "source", "content": MACHINE}, "bindings": [{"name": "turnstile"}]},
                    verification_adapter=adapter())
    assert report["verdict"] == "passed"
    assert report["policy"]["ai"] is False and report["policy"]["network"] is False
    assert all(r["status"] == "passed" for r in report["results"])
    assert report["coverage"]["model"]["transitions"] == {"covered": 4, "total": 4, "percent": 100.0}
    assert report["coverage"]["executed"]["transitions"]["percent"] == 100.0
    events = {step["event"]["type"] for path in report["paths"] for step in path["steps"]}
    assert events == {"COIN", "PUSH"}


BUGGY_DRIVER = '''
class Turnstile:
    def __init__(self): self.locked = True
    def coin(self): self.locked = False
    def push(self): pass          # bug: never locks again
def create(): return Turnstile()
EVENTS = {"COIN": lambda s, e: s.coin(), "PUSH": lambda s, e: s.push()}
STATES = {"locked": lambda s: s.locked, "unlocked": lambda s: not s.locked}
'''


@needs_isolation
def test_a_bug_fails_the_path_that_finds_it_and_junit_reports_it() -> None:
    report = verify({"model": {"kind": "source", "content": MACHINE}, "bindings": [{"content": BUGGY_DRIVER}]},
                    verification_adapter=adapter(allow_inline_drivers=True))
    assert report["verdict"] == "failed"
    failed = [r for r in report["results"] if r["status"] == "failed"]
    assert failed and all("locked" in r["message"] for r in failed)
    path = next(p for p in report["paths"] if p["id"] == failed[0]["pathId"])
    assert path["steps"][failed[0]["failedStep"] - 1]["event"]["type"] == "PUSH"
    suites = ET.fromstring(report_to_junit(report))
    assert int(suites.get("failures") or 0) == len(failed)
    assert len(suites.findall(".//testcase")) == len(report["results"])


def test_inline_drivers_are_refused_unless_the_host_allows_them() -> None:
    with pytest.raises(ToolError) as caught:
        verify({"model": {"kind": "source", "content": MACHINE}, "bindings": [{"content": BUGGY_DRIVER}]},
               verification_adapter=PythonDriverAdapter({}, extra_paths=[str(EXAMPLES)]))
    assert caught.value.code in ("invalid_input", "verification_unavailable")


NETWORK_DRIVER = '''
import socket
def create():
    # Reaches the test's listener unless the driver runs without network.
    socket.create_connection(("127.0.0.1", PORT), timeout=2).close()
    return object()
EVENTS = {"COIN": lambda s, e: None, "PUSH": lambda s, e: None}
STATES = {}
'''


@needs_isolation
def test_the_driver_has_no_network() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        driver = NETWORK_DRIVER.replace("PORT", str(listener.getsockname()[1]))
        report = verify({"model": {"kind": "source", "content": MACHINE}, "bindings": [{"content": driver}]},
                        verification_adapter=adapter(allow_inline_drivers=True))
    assert report["verdict"] == "failed"
    assert all(r["status"] == "error" and "OSError" in (r["message"] or "") for r in report["results"])


@needs_isolation
def test_machine_ids_resolve_through_the_provider(tmp_path: Path) -> None:
    registry = EmbeddedRegistry(tmp_path / "r.sqlite")
    registry.add_machine(registry.create_project("p", project_id="p1"), "turnstile", MACHINE, machine_id="m1")
    report = verify({"model": {"kind": "machine", "machineId": "m1"}}, verification_adapter=adapter(),
                    resource_provider=registry)
    assert report["model"]["machineId"] == "m1" and report["verdict"] == "passed"


@needs_isolation
def test_reports_feed_generate_test_paths_and_coverage_report() -> None:
    report = verify({"model": {"kind": "source", "content": MACHINE}}, verification_adapter=adapter())
    paths = tools.call("generate_test_paths", {"report": report})
    assert paths["count"] == len(report["paths"]) and paths["paths"] == report["paths"]
    coverage = tools.call("coverage_report", {"report": report})
    assert coverage["verdict"] == "passed" and coverage["coverage"] == report["coverage"]
    again = verify({"model": {"kind": "source", "content": MACHINE}, "baseline": report}, verification_adapter=adapter())
    assert again["baseline"]["regressions"] == []


def test_legacy_report_without_paths() -> None:
    legacy = {"results": [{"pathId": "a", "status": "passed"}], "verdict": "passed",
              "coverage": {"model": {}, "executed": {}}}
    with pytest.raises(ToolError) as caught:
        tools.call("generate_test_paths", {"report": legacy})
    assert caught.value.code == "verification_paths_unavailable"
    assert tools.call("coverage_report", {"report": legacy})["verdict"] == "passed"
    with pytest.raises(ToolError) as caught:
        tools.call("coverage_report", {"report": {"verdict": "maybe"}})
    assert caught.value.code == "invalid_input"


@needs_isolation
def test_each_finished_path_is_reported_as_progress() -> None:
    from statekit.budget import CallBudget

    seen: list[tuple[float, float | None]] = []
    budget = CallBudget(on_progress=lambda done, total, message: seen.append((done, total)))
    result = tools.call("verify", {"model": {"kind": "source", "content": MACHINE}, "bindings": [{"name": "turnstile"}]},
                        context=ToolContext(verification_adapter=adapter()), budget=budget)
    paths = len(result["report"]["paths"])
    assert paths > 1 and (paths, paths) in seen


SLOW_DRIVER = '''
import time
def create():
    time.sleep(60)
    return object()
EVENTS = {"COIN": lambda s, e: None, "PUSH": lambda s, e: None}
STATES = {}
'''


@needs_isolation
def test_the_call_deadline_stops_a_driver_that_hangs() -> None:
    from statekit.budget import CallBudget

    with pytest.raises(ToolError) as caught:
        tools.call("verify", {"model": {"kind": "source", "content": MACHINE}, "bindings": [{"content": SLOW_DRIVER}]},
                   context=ToolContext(verification_adapter=adapter(allow_inline_drivers=True)),
                   budget=CallBudget(seconds=1.0))
    assert caught.value.code == "deadline_exceeded"
