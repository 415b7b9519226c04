"""Machines published on npm: every tool answers, extraction equals XState's build, written
documents pass their real consumers, lossless round trips are lossless (issue 13, point 6).

The corpus is the JavaScript that the packages pinned in tests/realworld/package.json ship:
`npm ci` here installs them into node_modules (never copied into this repository) and
`realworld_checks.machine_files` finds every file that imports xstate and creates machines.
What still fails, and why, is listed in known_failures.json; an entry that no longer fails is
an error too, so the list stays true.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from realworld_checks import (
    Finding,
    Report,
    check_corpus,
    machine_files,
    node_available,
    package_of,
)

from needs import require

HERE = Path(__file__).parent
NODE_MODULES = HERE / "node_modules"
VALIDATORS = HERE.parent / "formats" / "validators" / "node_modules"
KNOWN = json.loads((HERE / "known_failures.json").read_text(encoding="utf-8"))


def _installed() -> bool:
    return (shutil.which("node") is not None and node_available() and (NODE_MODULES / "@sanity" / "comlink").is_dir()
            and (VALIDATORS / "mermaid").is_dir() and (VALIDATORS / "@terrastruct" / "d2").is_dir())


pytestmark = pytest.mark.needs(
    _installed(), "node with tests/realworld, tests/oracle/extract and tests/formats/validators node_modules",
    "npm ci in each of those folders",
)


@pytest.fixture(scope="module")
def files() -> list[Path]:
    require(_installed(), "tests/realworld/node_modules", "npm ci in tests/realworld")
    return machine_files(NODE_MODULES)


@pytest.fixture(scope="module")
def report(files: list[Path]) -> Report:
    return check_corpus(files, NODE_MODULES)


def _known(finding: Finding) -> dict[str, Any] | None:
    for entry in KNOWN:
        checks = entry["checks"]
        if entry["file"] == finding.file and entry["machine"] == finding.machine and (
            checks == "*" or any(finding.check.startswith(check) for check in checks)
        ):
            return dict(entry)
    return None


def _unexpected(report: Report, kinds: tuple[str, ...]) -> list[str]:
    return [str(f) for f in report.findings if f.kind.startswith(kinds) and _known(f) is None]


def _checkable(report: Report) -> int:
    """Machines every check reaches: all but those a known failure stops before the tools."""
    stopped = {(f.file, f.machine) for f in report.findings if (_known(f) or {}).get("checks") == "*"}
    return report.machines - len(stopped)


def test_every_pinned_package_ships_machines(files: list[Path], report: Report) -> None:
    manifest = json.loads((HERE / "package.json").read_text(encoding="utf-8"))
    packages = {package_of(path).rpartition("@")[0] for path in files}
    assert set(manifest["dependencies"]) <= packages
    assert report.machines >= 20


def test_every_tool_answers_every_machine(report: Report) -> None:
    """No internal error, no exception, no refusal: XState builds every one of these machines."""
    assert _unexpected(report, ("internal_error", "uncaught", "refused", "extraction error", "node error")) == []


def test_extraction_equals_what_xstate_builds(report: Report) -> None:
    assert _unexpected(report, ("differs", "XState builds no such machine")) == []
    compared = report.counts["extraction equals XState's build"]
    assert sum(compared.values()) == report.machines


def test_every_written_document_is_accepted_by_its_consumer(report: Report) -> None:
    """SCXML by the W3C schema, Mermaid by mermaid's parser, D2 by the D2 compiler, xstate-ts by XState."""
    assert _unexpected(report, ("rejected by consumer", "built differently")) == []
    for check in ("convert_machine to scxml: W3C schema", "convert_machine to mermaid: mermaid parser",
                  "convert_machine to d2: D2 compiler", "convert_machine to xstate-ts: XState builds it"):
        assert sum(report.counts[check].values()) == _checkable(report), check


def test_lossless_round_trips_are_lossless(report: Report) -> None:
    """xstate, yaml and xgraph always; SCXML whenever its writer reported no loss."""
    assert _unexpected(report, ("lost silently",)) == []
    for target in ("xstate", "yaml", "xgraph"):
        assert report.counts[f"convert_machine to {target}: round trip"]["lossless"] == _checkable(report), target


def test_every_known_failure_still_fails(report: Report) -> None:
    """known_failures.json lists only what still fails (remove an entry once it is fixed)."""
    stale = [entry for entry in KNOWN if not any(
        entry["file"] == f.file and entry["machine"] == f.machine
        and (entry["checks"] == "*" or any(f.check.startswith(check) for check in entry["checks"]))
        for f in report.findings)]
    assert stale == []
