"""Every Python and shell block of README.md and docs/*.md runs as written, or says why not.

A block marked `<!-- fragment: REASON -->` on the line before its fence is shown for its use (a
server that runs until stopped, an install, another program); every other ```python block is run
in a fresh folder that sees the repository's examples/, and every line of every other ```sh block
is a `statekit` command that is run there and must succeed. docs/gate.md is run by
tests/docs/test_gate_doc.py and skipped here. The fastmcp pin is the same in every file.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUN_ELSEWHERE = {"docs/gate.md"}
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.DOTALL | re.MULTILINE)
FRAGMENT = re.compile(r"<!-- fragment: (\S[^>]*?) -->\n$")


def documents() -> list[str]:
    return ["README.md", *sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))]


def code_blocks() -> list[tuple[str, int, str, str, str | None]]:
    """(document, line, language, body, fragment reason) of each python and shell block."""
    found = []
    for doc in documents():
        text = (ROOT / doc).read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            if match.group(1) not in ("python", "sh", "bash", "shell"):
                continue
            before = text[: match.start()]
            reason = FRAGMENT.search(before[-200:])
            found.append((doc, before.count("\n") + 1, match.group(1), match.group(2),
                          reason.group(1) if reason else None))
    return found


def runnable() -> list[tuple[str, int, str, str]]:
    return [(doc, line, kind, body) for doc, line, kind, body, reason in code_blocks()
            if reason is None and doc not in RUN_ELSEWHERE]


def workdir(tmp_path: Path) -> Path:
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    return tmp_path


def env() -> dict[str, str]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    environment.pop("STATEKIT_STORE", None)
    return environment


def test_the_docs_have_blocks_that_run_and_fragments_that_say_why() -> None:
    blocks = code_blocks()
    assert len(runnable()) >= 6
    assert all(reason and len(reason) > 5 for _d, _l, _k, _b, reason in blocks if reason is not None)
    for needed in ("README.md", "docs/formats.md", "docs/render.md"):
        assert any(doc == needed for doc, *_ in runnable()), needed


@pytest.mark.parametrize(("doc", "line", "kind", "body"), runnable(),
                         ids=[f"{doc}:{line}" for doc, line, *_ in runnable()])
def test_block_runs_as_written(tmp_path: Path, doc: str, line: int, kind: str, body: str) -> None:
    cwd = workdir(tmp_path)
    if kind == "python":
        completed = subprocess.run([sys.executable, "-c", body], cwd=cwd, capture_output=True, text=True,
                                   timeout=300, env=env(), check=False)
        assert completed.returncode == 0, f"{doc}:{line}\n{completed.stderr}"
        return
    for command in body.splitlines():
        if not command.strip():
            continue
        words = shlex.split(command, comments=True)
        assert words[0] == "statekit", f"{doc}:{line}: mark the block as a fragment or make it statekit commands"
        completed = subprocess.run([sys.executable, "-m", "statekit.cli", *words[1:]], cwd=cwd, capture_output=True,
                                   text=True, timeout=300, env=env(), check=False)
        assert completed.returncode == 0, f"{doc}:{line}: {command}\n{completed.stderr}"


def test_the_fastmcp_pin_is_one_everywhere() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    pins = {r for r in pyproject["project"]["optional-dependencies"]["test"] if r.startswith("fastmcp")}
    assert len(pins) == 1
    pin = pins.pop()
    files = [*ROOT.glob("*.md"), *ROOT.glob("docs/*.md"), *ROOT.glob("examples/*.py"), ROOT / ".ci" / "run"]
    for path in files:
        if not path.exists():
            continue
        for written in re.findall(r"fastmcp\s*[<>=!~][^'\"\s`)]*", path.read_text(encoding="utf-8")):
            assert written.replace(" ", "") == pin, f"{path.relative_to(ROOT)}: {written} (pyproject: {pin})"
