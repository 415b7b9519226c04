"""JUnit XML for a verification report: a test suite per machine, a test case per path."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from xml.etree import ElementTree as ET


def report_to_junit(report: Mapping[str, Any]) -> str:
    """The report as JUnit XML (readable by CI systems)."""
    paths = {p.get("id"): p for p in report.get("paths") or [] if isinstance(p, Mapping)}
    results = [r for r in report.get("results") or [] if isinstance(r, Mapping)]
    model = report.get("model") or {}
    suite_name = str(model.get("machine") or model.get("machineId") or "machine")
    failures = sum(1 for r in results if r.get("status") == "failed")
    errors = sum(1 for r in results if r.get("status") == "error")
    skipped = sum(1 for r in results if r.get("status") == "skipped")
    total_ms = sum(float(r.get("durationMs") or 0) for r in results)
    suites = ET.Element("testsuites", name="statekit verification", tests=str(len(results)),
                        failures=str(failures), errors=str(errors), time=f"{total_ms / 1000:.3f}")
    suite = ET.SubElement(suites, "testsuite", name=suite_name, tests=str(len(results)), failures=str(failures),
                          errors=str(errors), skipped=str(skipped), time=f"{total_ms / 1000:.3f}")
    properties = ET.SubElement(suite, "properties")
    ET.SubElement(properties, "property", name="verdict", value=str(report.get("verdict")))
    for result in results:
        path_id = str(result.get("pathId"))
        path = paths.get(path_id, {})
        name = str(path.get("description") or path_id)
        case = ET.SubElement(suite, "testcase", classname=suite_name, name=name,
                             time=f"{float(result.get('durationMs') or 0) / 1000:.3f}")
        status = result.get("status")
        message = str(result.get("message") or "")
        step = result.get("failedStep")
        detail = f"step {step}: {message}" if step is not None else message
        if status == "failed":
            ET.SubElement(case, "failure", message=message, type="AssertionError").text = detail
        elif status == "error":
            ET.SubElement(case, "error", message=message, type="Error").text = detail
        elif status == "skipped":
            ET.SubElement(case, "skipped", message=message)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True)
