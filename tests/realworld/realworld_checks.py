"""Every tool on machines nobody here wrote: the checks tests/realworld and bench/realworld_gather.py share.

`machine_files(root)` finds published JavaScript that imports xstate and creates machines.
`check_corpus(files)` then, for every machine statekit extracts from those files:

* compares the extraction with what XState 5.33.3 builds when the file runs in node
  (tests/oracle/extract/machine_configs.mjs; top-level machine factories are called without
  arguments, as packages write `createXMachine = () => setup(...).createMachine(...)`);
* calls extract_machines_from_code, validate_machine, simulate_machine, generate_graph_paths,
  visualize_machine and convert_machine to every writable format, and reads each written
  document back;
* gives each written document to its real consumer: SCXML to the W3C XML schema, Mermaid to
  mermaid's parser, D2 to the D2 compiler, xstate-ts to XState in node (which must build the
  machine statekit reads from the same text);
* checks the round trips docs/formats.md calls lossless: xstate, yaml and xgraph always,
  SCXML whenever the writer reported no loss.

Each failure is a `Finding`; `Report.counts` holds the figures bench/realworld_gather.py prints.
"""

from __future__ import annotations

import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(TESTS), str(TESTS / "extract")]

from extract_oracle import (  # noqa: E402
    ORACLE_DIR,
    first_difference,
    node_available,
    node_machine_configs,
    normalize_codes,
)
from lxml import etree  # noqa: E402

from statekit.analysis.budget import bounded_call  # noqa: E402
from statekit.errors import ToolError  # noqa: E402
from statekit.extract import extract_machines  # noqa: E402
from statekit.tools import call  # noqa: E402

__all__ = ["Finding", "Report", "check_corpus", "machine_files", "node_available", "package_of", "table"]

VALIDATORS = TESTS / "formats" / "validators"
SCHEMA = etree.XMLSchema(etree.parse(str(TESTS / "data" / "scxml-schema" / "scxml.xsd")))
SOURCE_SUFFIXES = (".js", ".mjs", ".cjs")
IMPORTS_XSTATE = re.compile(r"""(?:from\s*["']xstate["']|require\(\s*["']xstate["']\s*\))""")
TEST_PARTS = {"__tests__", "__test-utils__", "__mocks__", "test", "tests"}
XSTATE_ITSELF = ("xstate@", "@xstate/")  # the library's own files, not machines
LOSSLESS = ("xstate", "yaml", "xgraph")
TARGETS = ("xstate", "yaml", "scxml", "xgraph", "mermaid", "d2", "xstate-ts")
# SCXML warnings that do not mean a loss (docs/formats.md, "The lossless subset").
SCXML_HARMLESS = {"expression_kept"}


@dataclass(frozen=True)
class Written:
    """A document a writer produced, for its consumer: where from, the text, the warning codes."""

    where: tuple[str, str]
    content: str
    warnings: frozenset[str]


@dataclass(frozen=True)
class Finding:
    """One check that failed on one machine: `check` names it, `kind` says how it failed."""

    file: str
    machine: str
    check: str
    kind: str
    message: str

    def __str__(self) -> str:
        return f"{self.file} {self.machine}: {self.check}: {self.kind}: {self.message[:300]}"


@dataclass
class Report:
    files: int = 0
    machines: int = 0
    findings: list[Finding] = field(default_factory=list)
    counts: dict[str, collections.Counter[str]] = field(default_factory=lambda: collections.defaultdict(collections.Counter))

    def count(self, check: str, outcome: str) -> None:
        self.counts[check][outcome] += 1

    def fail(self, file: str, machine: str, check: str, kind: str, message: str) -> None:
        self.findings.append(Finding(file, machine, check, kind, message))
        self.count(check, kind)


def _is_test_path(path: Path) -> bool:
    return bool(TEST_PARTS & set(path.parts)) or ".test." in path.name or ".spec." in path.name


def _duplicate_build(path: Path) -> bool:
    """A CommonJS build whose ES module twin is published beside it (index.cjs next to index.js,
    lib/cjs/x.js next to lib/esm/x.js): the same machines twice."""
    if path.suffix == ".cjs" and (path.with_suffix(".js").exists() or path.with_suffix(".mjs").exists()):
        return True
    parts = path.parts
    if "cjs" in parts:
        index = len(parts) - 1 - parts[::-1].index("cjs")
        return Path(*parts[:index], "esm", *parts[index + 1:]).exists()
    return False


def machine_files(root: Path) -> list[Path]:
    """Every published source file under `root` that imports xstate and calls createMachine."""
    found = []
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder) / name
            if not name.endswith(SOURCE_SUFFIXES) or _is_test_path(path.relative_to(root)) or _duplicate_build(path):
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            if "createMachine" in text and IMPORTS_XSTATE.search(text) and not package_of(path).startswith(XSTATE_ITSELF):
                found.append(path)
    return sorted(found)


def package_of(path: Path) -> str:
    """`name@version` of the npm package that holds `path` (its nearest package.json with a name)."""
    for folder in path.parents:
        manifest = folder / "package.json"
        if manifest.is_file():
            data = json.loads(manifest.read_text(encoding="utf-8"))
            if data.get("name") and data.get("version"):
                return f"{data['name']}@{data['version']}"
    return "?"


def node_builds(requests: dict[Path, list[str]]) -> dict[str, Any]:
    """What XState builds from each file: machines created on load, and each named factory's."""
    result = subprocess.run(
        ["node", str(ORACLE_DIR / "machine_configs.mjs"), "--factories"],
        input=json.dumps({str(path.resolve()): names for path, names in requests.items()}),
        capture_output=True, text=True, check=True, timeout=600, cwd=ORACLE_DIR,
    )
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def _expected_configs(names: list[str], built: dict[str, Any]) -> list[Any]:
    """XState's config for each extracted machine, in statekit's order: a factory's (the last
    machine it creates: inner machines come first) or the next machine created on load."""
    loaded = iter(built.get("machines", []))
    factories: dict[str, Any] = built.get("factories", {})
    expected: list[Any] = []
    for name in names:
        if name in factories:
            made = factories[name]
            expected.append(made[-1] if isinstance(made, list) and made else
                            {"$missing": f"the factory {name}() " + (made.get("error", "") if isinstance(made, dict)
                                                                      else "creates no machine")})
        else:
            expected.append(next(loaded, {"$missing": "node creates fewer machines on load"}))
    return expected


def _tool(report: Report, where: tuple[str, str], check: str, tool: str, arguments: dict[str, Any],
          seconds: float | None = None) -> Any:
    """The tool's result, or None after recording how it failed. `seconds` bounds the call as a
    server's call deadline does (its traversals stop with truncatedReason 'time')."""
    try:
        with bounded_call(deadline=None if seconds is None else time.monotonic() + seconds):
            result = call(tool, arguments)
    except ToolError as error:
        kind = "internal_error" if error.code == "internal_error" else f"refused ({error.code})"
        report.fail(*where, check, kind, error.message)
        return None
    except Exception as error:  # an exception escaping a tool is what this counts
        report.fail(*where, check, "uncaught", f"{type(error).__name__}: {error}")
        return None
    report.count(check, "answered")
    return result


def _losses(warnings: list[dict[str, Any]]) -> list[str]:
    return sorted({w["code"] for w in warnings} - SCXML_HARMLESS)


def _check_conversions(report: Report, where: tuple[str, str], config: dict[str, Any],
                       diagrams: dict[str, list[Written]]) -> None:
    canonical = _tool(report, where, "convert_machine to xstate (canonical)", "convert_machine",
                      {"machine": config, "to": "xstate"})
    for target in TARGETS:
        check = f"convert_machine to {target}"
        result = _tool(report, where, check, "convert_machine", {"machine": config, "to": target})
        if result is None:
            continue
        content = result["content"]
        try:
            back = call("convert_machine", {"machine": content, "from": target, "to": "xstate"})
        except ToolError as error:
            report.fail(*where, f"{check}: read back", f"refused ({error.code})", error.message)
            continue
        except Exception as error:
            report.fail(*where, f"{check}: read back", "uncaught", f"{type(error).__name__}: {error}")
            continue
        report.count(f"{check}: read back", "answered")
        same = canonical is not None and back["content"] == canonical["content"]
        if target in LOSSLESS or (target == "scxml" and not _losses(result["warnings"])):
            if not same and canonical is not None:
                lost = first_difference(back["content"], canonical["content"])
                report.fail(*where, f"{check}: round trip", "lost silently", str(lost))
            else:
                report.count(f"{check}: round trip", "lossless")
        elif target == "scxml":
            report.count(f"{check}: round trip", "lossless" if same else "loss warned")
        if target == "scxml":
            document = etree.fromstring(content.encode("utf-8"))
            if SCHEMA.validate(document):
                report.count(f"{check}: W3C schema", "valid")
            else:
                report.fail(*where, f"{check}: W3C schema", "rejected by consumer", str(SCHEMA.error_log.last_error))
        if target in ("mermaid", "d2", "xstate-ts"):
            diagrams[target].append(Written(where, content, frozenset(w["code"] for w in result["warnings"])))


def _validate_diagrams(report: Report, diagrams: dict[str, list[Written]]) -> None:
    """Mermaid's parser and the D2 compiler on every written diagram (one node run per format)."""
    for target, script in (("mermaid", "mermaid_parse.mjs"), ("d2", "d2_compile.mjs")):
        written = diagrams[target]
        if not written:
            continue
        with tempfile.TemporaryDirectory() as folder:
            paths = []
            for number, document in enumerate(written):
                path = Path(folder) / f"{number}.txt"
                path.write_text(document.content, encoding="utf-8")
                paths.append(str(path))
            done = subprocess.run(["node", str(VALIDATORS / script), *paths], capture_output=True, text=True,
                                  timeout=600, check=True)
        results = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
        check = f"convert_machine to {target}: {'mermaid parser' if target == 'mermaid' else 'D2 compiler'}"
        for document, outcome in zip(written, results, strict=True):
            if outcome["ok"]:
                report.count(check, "accepted")
            else:
                report.fail(*document.where, check, "rejected by consumer", str(outcome["error"]))


def _build_written_sources(report: Report, written: list[Written]) -> None:
    """XState builds every written xstate-ts file, and builds what statekit reads from it."""
    if not written:
        return
    check = "convert_machine to xstate-ts: XState builds it"
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for number, document in enumerate(written):
            path = Path(folder) / f"machine{number}.ts"
            path.write_text(document.content, encoding="utf-8")
            paths.append(path)
        built = node_machine_configs(paths)
        ours = normalize_codes([
            [m["config"] for m in extract_machines(path.read_text(encoding="utf-8"), path.name)["machines"]]
            for path in paths
        ])
        for document, path, extracted in zip(written, paths, ours, strict=True):
            where = document.where
            expected = built[str(path.resolve())]
            if "error" in expected and "expression_kept" in document.warnings:
                # Values extraction could not evaluate are written as they were: the writer says
                # they need the original module's names, which a file on its own lacks.
                report.count(check, "needs the original module's names (warned)")
                continue
            if "error" in expected:
                report.fail(*where, check, "rejected by consumer", expected["error"])
                continue
            difference = first_difference(extracted, expected["machines"])
            if difference is None and len(extracted) == 1:
                report.count(check, "built as read")
            else:
                report.fail(*where, check, "built differently", difference or f"{len(extracted)} machines")


def check_corpus(files: Iterable[Path], root: Path, paths_seconds: float | None = None) -> Report:
    """Run every check on every machine of `files` (paths reported relative to `root`);
    `paths_seconds`, if given, is generate_graph_paths' call deadline (its default budget otherwise)."""
    report = Report()
    sources = {path: path.read_text(encoding="utf-8") for path in files}
    report.files = len(sources)
    extracted = {path: extract_machines(text, path.name) for path, text in sources.items()}
    built = node_builds({path: [m["name"] for m in result["machines"]] for path, result in extracted.items()})
    ours = normalize_codes({str(path): [m["config"] for m in result["machines"]] for path, result in extracted.items()})
    diagrams: dict[str, list[Written]] = collections.defaultdict(list)
    for path, result in extracted.items():
        label = str(path.relative_to(root))
        for error in result["errors"]:
            report.fail(label, "-", "extract", "extraction error", str(error))
        node_side = built[str(path.resolve())]
        if "error" in node_side:
            report.fail(label, "-", "XState builds the file", "node error", node_side["error"])
            continue
        names = [m["name"] for m in result["machines"]]
        tool_result = _tool(report, (label, "-"), "extract_machines_from_code", "extract_machines_from_code",
                            {"code": sources[path], "filename": path.name})
        if tool_result is not None and len(tool_result["machines"]) != len(names):
            report.fail(label, "-", "extract_machines_from_code", "differs from extract_machines",
                        f"{len(tool_result['machines'])} machines vs {len(names)}")
        for machine, config, expected in zip(result["machines"], ours[str(path)], _expected_configs(names, node_side),
                                             strict=True):
            report.machines += 1
            where = (label, machine["name"])
            if "$missing" in expected:
                report.fail(*where, "extraction equals XState's build", "XState builds no such machine", expected["$missing"])
            else:
                difference = first_difference(config, expected)
                if difference is None:
                    report.count("extraction equals XState's build", "equal")
                else:
                    report.fail(*where, "extraction equals XState's build", "differs", difference)
            raw = machine["config"]
            _tool(report, where, "validate_machine", "validate_machine", {"machine": raw})
            _tool(report, where, "simulate_machine", "simulate_machine", {"machine": raw, "events": []})
            paths = _tool(report, where, "generate_graph_paths", "generate_graph_paths",
                          {"machine": raw, "algorithm": "shortest"}, paths_seconds)
            if paths is not None:
                report.count("generate_graph_paths", f"mode {paths['normalization']['mode']}")
                if paths["truncatedReason"] not in (None, "paths"):
                    report.count("generate_graph_paths", f"truncated: {paths['truncatedReason']}")
            _tool(report, where, "visualize_machine", "visualize_machine", {"machine": raw})
            _check_conversions(report, where, raw, diagrams)
    _validate_diagrams(report, diagrams)
    _build_written_sources(report, diagrams["xstate-ts"])
    return report


def table(report: Report) -> str:
    """The figures as a Markdown table: per check, its outcomes."""
    lines = ["| check | outcomes |", "|---|---|"]
    for check, counter in report.counts.items():
        lines.append(f"| {check} | {', '.join(f'{key} {n}' for key, n in sorted(counter.items()))} |")
    return "\n".join(lines)
