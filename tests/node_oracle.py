"""Running a reference oracle: a node script over the real XState, @xstate/graph or TypeScript.

Every differential test reaches node the same way, so the way lives here once. The script runs
with `node` from PATH, its cases as JSON on stdin (or file paths as arguments) and its answer
as one JSON document on stdout:

    traces = run_node(ORACLE_DIR / "trace.mjs", stdin=json.dumps(cases),
                      packages=[ORACLE_DIR / "node_modules" / "xstate"])

* `development=True` (the default) runs it under `--conditions=development`: XState's
  development build, whose errors and warnings are the ones the oracles compare.
* A missing node or package is `needs.missing`: the test skips on a developer's machine and
  fails under `CI=true`, saying which `npm ci` installs it.
* A script that exits non-zero raises `NodeOracleError` with the tail of its stderr, so a
  broken oracle is a failing test, never an empty answer compared as if it were one.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from needs import REPO, missing

#: The oracles' folder: node scripts, their package.json, and their Python halves.
ORACLE_DIR = REPO / "tests" / "oracle"


class NodeOracleError(RuntimeError):
    """The oracle script exited non-zero (its stderr's tail is the message)."""


def node_ready(packages: Sequence[Path] = ()) -> bool:
    """Whether node is on PATH and every package directory in `packages` is installed."""
    return shutil.which("node") is not None and all(package.is_dir() for package in packages)


def require_node(packages: Sequence[Path] = ()) -> str:
    """node's path; `needs.missing` (skip, or fail in CI) when node or a package is absent."""
    node = shutil.which("node")
    absent = [package for package in packages if not package.is_dir()]
    if node is None or absent:
        what = "node" if node is None else f"node package {_shown(absent[0])}"
        where = _install_dir(absent[0]) if absent else None
        missing(what, f"npm ci in {_shown(where)}" if where else "install Node.js 20 or later")
    return node


def run_node(script: Path, *arguments: str, stdin: str | None = None, packages: Sequence[Path] = (),
             development: bool = True, cwd: Path | None = None, timeout: float = 600) -> Any:
    """`script`'s JSON answer (see the module docstring). `timeout` is a safety net against a
    case that never settles, not a measurement."""
    node = require_node(packages)
    command = [node, *(["--conditions=development"] if development else []), str(script), *arguments]
    completed = subprocess.run(command, input=stdin, capture_output=True, text=True, check=False,
                               cwd=cwd or script.parent, timeout=timeout)
    if completed.returncode != 0:
        raise NodeOracleError(f"{script.name} failed ({completed.returncode}):\n{completed.stderr[-4000:]}")
    return json.loads(completed.stdout)


def oracle_cases(*filenames: str) -> list[Any]:
    """The cases of `tests/oracle/<filename>` JSON arrays, in order, one list."""
    return [case for filename in filenames for case in json.loads((ORACLE_DIR / filename).read_text(encoding="utf-8"))]


def live_clock_runs(cases: Sequence[Any]) -> dict[str, Any]:
    """`live_clock.mjs`'s report of each case, by name: its machine as an XState actor on a clock
    that keeps real time's order (the snapshot after each event, each one a timer produced)."""
    runs = run_node(ORACLE_DIR / "live_clock.mjs", stdin=json.dumps(list(cases)),
                    packages=[ORACLE_DIR / "node_modules" / "xstate"], timeout=300)
    return {run["name"]: run for run in runs}


def live_clock_shape(snapshot: Any) -> dict[str, Any]:
    """A statekit snapshot as `live_clock.mjs` reports XState's: value, context and status."""
    data = snapshot.to_json()
    return {"value": data["value"], "context": data.get("context"), "status": data["status"]}


@cache
def oracle_module(filename: str) -> ModuleType:
    """`tests/oracle/<filename>`, one of the oracles' Python halves (the folder is not a package),
    loaded by path once: every test module that asks gets the same module object."""
    name = f"statekit_oracle_{Path(filename).stem}"
    spec = importlib.util.spec_from_file_location(name, ORACLE_DIR / filename)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _install_dir(package: Path) -> Path | None:
    """The folder whose `npm ci` installs `package` (the parent of its node_modules)."""
    for parent in (package, *package.parents):
        if parent.name == "node_modules":
            return parent.parent
    return None


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(REPO))
    except ValueError:
        return str(path)
