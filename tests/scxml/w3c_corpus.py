"""The W3C SCXML 1.0 IRP corpus beside the repository, and one way to run a test of it.

A test passes when its document, run to completion with nothing assumed (delayed events fired on
the virtual clock), ends in the top-level final state `pass`. Tests whose start is several
files (403a/b/c) pass when every file does. `file:` sources are allowed under the test's folder
only (tests 216, 226, 239, 242, 276 invoke files; 552 reads data from one).
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from pathlib import Path

from needs import SHARED
from statekit.scxml import ScxmlSystem, Session

# shared/ lies beside the repository (in development and in CI alike; see tests/needs.py);
# STATEKIT_W3C_SCXML names another copy.
ROOT = Path(os.environ.get("STATEKIT_W3C_SCXML") or SHARED / "data" / "w3c-scxml")
MANIFEST = ROOT / "manifest.tsv"
#: The tests that read files through `file:` (allowed under the test folder only): mandatory
#: 216, 226, 239, 242, 276 (invoke src) and 552 (data src); optional 446, 557, 558 (data src).
NEEDS_FILES = ("216", "226", "239", "242", "276", "552", "446", "557", "558")


@dataclass(frozen=True)
class W3cTest:
    id: str
    specid: str
    mandatory: bool
    files: tuple[Path, ...]


def automatic_tests() -> list[W3cTest]:
    """Every automatic (not manual) test of the manifest whose files are in the corpus."""
    if not MANIFEST.is_file():
        return []
    tests = []
    with MANIFEST.open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            if row["manual"] != "false":
                continue
            folder = ROOT / ("null" if row["id"] == "436" else "ecma")
            files = tuple(folder / Path(start).name.replace(".txml", ".scxml") for start in row["start"].split(";"))
            if all(f.is_file() for f in files):
                tests.append(W3cTest(row["id"], row["specid"], row["conformance"] == "mandatory", files))
    return tests


def mandatory_count() -> int:
    with MANIFEST.open(encoding="utf-8") as handle:
        return sum(1 for row in csv.DictReader(handle, delimiter="\t")
                   if row["manual"] == "false" and row["conformance"] == "mandatory")


def run_file(path: Path, *, allow_files: bool = True) -> Session:
    system = ScxmlSystem(base_dir=path.parent if allow_files else None)
    session = system.start(path.read_bytes(), base=str(path.parent))
    system.run_until_idle(session)
    return session


def outcome(test: W3cTest) -> tuple[bool, str]:
    """(passed, what happened) for one test; file access only for the tests that need it."""
    notes = []
    for path in test.files:
        session = run_file(path, allow_files=test.id in NEEDS_FILES)
        if session.final != "pass":
            where = session.final or f"still in {session.active_state_ids()}"
            notes.append(f"{path.name} ended in {where}" + (f" ({session.error})" if session.error else ""))
    return not notes, "; ".join(notes) or "pass"
