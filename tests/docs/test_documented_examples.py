"""The worked examples of docs/live-machines.md, docs/properties.md and the README run as documented.

Each ```python block followed by a ```text block is run from the repository root and must
print exactly that text; each `$ statekit ...` line of a ```console block is run and must
print the lines under it (in the README, a command shown with no lines under it is shown for
its use, not its output, and is not run).
"""

from __future__ import annotations

import itertools
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ("docs/live-machines.md", "docs/properties.md")
README = "README.md"
BLOCK = re.compile(r"```(\w+)\n(.*?)```", re.DOTALL)


def blocks(doc: str) -> list[tuple[str, str]]:
    return [(kind, body) for kind, body in BLOCK.findall((ROOT / doc).read_text(encoding="utf-8"))]


def python_examples() -> list[tuple[str, str, str]]:
    found = []
    for doc in DOCS:
        found_blocks = blocks(doc)
        for (kind, body), (next_kind, output) in itertools.pairwise(found_blocks):
            if kind == "python" and next_kind == "text":
                found.append((doc, body, output))
    return found


def console_examples() -> list[tuple[str, str, str]]:
    found = []
    for doc in (*DOCS, README):
        for kind, body in blocks(doc):
            if kind != "console":
                continue
            for command in re.split(r"^(?=\$ )", body, flags=re.MULTILINE):
                if command.startswith("$ statekit "):
                    line, _, output = command.partition("\n")
                    if doc == README:
                        if not output:
                            continue
                        if output.endswith("\n\n"):  # the README sets commands apart by a blank line
                            output = output[:-1]
                    found.append((doc, line[2:], output))
    return found


def run_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("STATEKIT_STORE", None)
    return env


def test_the_docs_have_examples() -> None:
    assert len(python_examples()) >= 1 and len(console_examples()) >= 2
    assert sum(doc == README for doc, _command, _output in console_examples()) >= 4


@pytest.mark.parametrize(("doc", "code", "expected"), python_examples())
def test_python_example_prints_what_the_doc_shows(doc: str, code: str, expected: str) -> None:
    completed = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                               timeout=300, env=run_env(), check=False)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout == expected


@pytest.mark.parametrize(("doc", "command", "expected"), console_examples())
def test_command_prints_what_the_doc_shows(doc: str, command: str, expected: str) -> None:
    words = shlex.split(command)
    completed = subprocess.run([sys.executable, "-m", "statekit.cli", *words[1:]], cwd=ROOT, capture_output=True,
                               text=True, timeout=300, env=run_env(), check=False)
    assert completed.stdout == expected, completed.stderr
