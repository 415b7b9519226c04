"""The layer contract (pyproject.toml `[tool.importlinter]`, checked by `lint-imports` in CI).

These tests keep the contract honest: every subpackage is placed in it, and the tool that checks
it does see imports written inside functions.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import statekit

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(statekit.__file__).parent


def _contracts() -> list[dict[str, object]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts: list[dict[str, object]] = config["tool"]["importlinter"]["contracts"]
    return contracts


def _layered_names() -> set[str]:
    names: set[str] = set()
    for contract in _contracts():
        if contract["type"] == "layers":
            for layer in contract["layers"]:  # type: ignore[attr-defined]
                names.update(part.strip(" ()") for part in layer.replace(":", "|").split("|"))
    return names


def test_every_subpackage_has_a_place_in_the_layers() -> None:
    children = {
        path.stem if path.is_file() else path.name
        for path in PACKAGE.iterdir()
        if (path.is_dir() and (path / "__init__.py").exists()) or (path.suffix == ".py" and path.stem != "__init__")
    }
    children.discard("__main__")
    assert children, "no subpackages found"
    assert children - _layered_names() == set(), "add the new subpackage to the layers in pyproject.toml"


def test_contract_covers_cycles_and_the_gate() -> None:
    types = {contract["type"] for contract in _contracts()}
    assert {"layers", "forbidden", "acyclic_siblings"} <= types


def _lint(tmp_path: Path, low_body: str) -> subprocess.CompletedProcess[str]:
    package = tmp_path / "layered_demo"
    for name, body in {"": "", "high": "VALUE = 1\n", "low": low_body}.items():
        folder = package / name if name else package
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "__init__.py").write_text(body, encoding="utf-8")
    (tmp_path / ".importlinter").write_text(textwrap.dedent("""\
        [importlinter]
        root_package = layered_demo

        [importlinter:contract:layers]
        name = demo layers
        type = layers
        containers = layered_demo
        layers =
            high
            low
        """), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    command = [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
               "sys.argv[0] = 'lint-imports'; lint_imports_command()", "--no-cache"]
    return subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


def test_the_linter_counts_imports_inside_functions(tmp_path: Path) -> None:
    """An upward import written inside a function breaks the contract like a top-level one."""
    broken = _lint(tmp_path, "def later() -> int:\n    from layered_demo.high import VALUE\n    return VALUE\n")
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "layered_demo.low -> layered_demo.high (l.2)" in broken.stdout, broken.stdout
    kept = _lint(tmp_path, "def later() -> int:\n    return 1\n")
    assert kept.returncode == 0, kept.stdout + kept.stderr
