"""Every Python block of docs/gate.md runs as written.

The blocks run in order in one scratch directory, as a reader following the page would:

- a block whose first line is `# NAME.py` is saved there as NAME.py (later blocks import it);
- a block followed directly by a ```text block is run as a script and must print exactly that text;
- any other block is run too: a `# NAME.py` one by importing it (so a server behind
  `if __name__ == "__main__":` is built and installed but not started), others as a script.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "gate.md"
BLOCK = re.compile(r"```(\w+)\n(.*?)```", re.DOTALL)
FILE_NAME = re.compile(r"# (\w+)\.py\n")


def python_blocks() -> list[tuple[str | None, str, str | None]]:
    """(file name or None, code, expected output or None) for each Python block, in page order."""
    text = DOC.read_text(encoding="utf-8")
    found = list(BLOCK.finditer(text))
    blocks = []
    for index, match in enumerate(found):
        kind, body = match.groups()
        if kind != "python":
            continue
        named = FILE_NAME.match(body)
        following = found[index + 1] if index + 1 < len(found) else None
        # Its output is the ```text block right after it (nothing but blank lines between).
        expected = (
            following.group(2)
            if following is not None
            and following.group(1) == "text"
            and not text[match.end() : following.start()].strip()
            else None
        )
        blocks.append((named.group(1) if named else None, body, expected))
    return blocks


def run(arguments: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    source = str(ROOT / "src")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [source, env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, *arguments], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env=env, check=False)


def test_the_page_has_its_examples() -> None:
    blocks = python_blocks()
    assert len(blocks) >= 9
    assert blocks[0][0] == "invoices"  # FastMCP first
    assert sum(expected is not None for _, _, expected in blocks) >= 3


def test_every_python_block_runs_as_written(tmp_path: Path) -> None:
    ran = 0
    for name, code, expected in python_blocks():
        if name is not None:
            (tmp_path / f"{name}.py").write_text(code, encoding="utf-8")
            command = [f"{name}.py"] if expected is not None else ["-c", f"import {name}"]
        else:
            command = ["-c", code]
        completed = run(command, tmp_path)
        where = f"block {name or code[:60]!r}"
        assert completed.returncode == 0, f"{where} failed:\n{completed.stderr}"
        if expected is not None:
            assert completed.stdout == expected, f"{where} printed:\n{completed.stdout}"
        ran += 1
    assert ran == len(python_blocks())
