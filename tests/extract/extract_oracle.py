"""The node side of the extraction tests: what XState builds from a file, and code normalisation.

`node_machine_configs(files)` runs tests/oracle/extract/machine_configs.mjs (the files run in
node with the real xstate 5.33.3); `normalize_codes(value)` sends every code string of an
extracted config through the same TypeScript transpilation the node side applies to
`fn.toString()`, so that the two sides compare code, not formatting or types.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from needs import require

ORACLE_DIR = Path(__file__).resolve().parents[1] / "oracle" / "extract"
CODE_KEYS = ("code", "$js")


def node_available() -> bool:
    return shutil.which("node") is not None and (ORACLE_DIR / "node_modules" / "xstate").is_dir() and (
        ORACLE_DIR / "node_modules" / "typescript"
    ).is_dir()


def require_node() -> None:
    """Skip when the node side is not installed, except in CI where it must be."""
    require(node_available(), "node and tests/oracle/extract/node_modules", "npm ci in tests/oracle/extract")


def node_machine_configs(files: Iterable[Path]) -> dict[str, Any]:
    paths = [str(Path(f).resolve()) for f in files]
    result = subprocess.run(
        ["node", str(ORACLE_DIR / "machine_configs.mjs"), *paths],
        capture_output=True, text=True, check=True, timeout=300, cwd=ORACLE_DIR,
    )
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def _codes(value: Any, out: list[str]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if key in CODE_KEYS and isinstance(item, str):
                out.append(item)
            else:
                _codes(item, out)
    elif isinstance(value, list):
        for item in value:
            _codes(item, out)


def _replace(value: Any, table: dict[str, str]) -> Any:
    if isinstance(value, dict):
        return {
            key: table[item] if key in CODE_KEYS and isinstance(item, str) else _replace(item, table)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_replace(item, table) for item in value]
    return value


def normalize_codes(value: Any) -> Any:
    """`value` with every code string replaced by its normal form (one node call for all)."""
    codes: list[str] = []
    _codes(value, codes)
    unique = sorted(set(codes))
    if not unique:
        return value
    result = subprocess.run(
        ["node", str(ORACLE_DIR / "normalize.mjs")], input=json.dumps(unique),
        capture_output=True, text=True, check=True, timeout=300, cwd=ORACLE_DIR,
    )
    table = dict(zip(unique, json.loads(result.stdout), strict=True))
    return _replace(value, table)


def first_difference(left: Any, right: Any, path: str = "") -> str | None:
    """Where two JSON values first differ (None when equal), for readable failures."""
    if isinstance(left, dict) and isinstance(right, dict):
        for key in sorted(set(left) | set(right)):
            if key not in left or key not in right:
                return f"{path}.{key}: only in {'node' if key in right else 'statekit'}"
            found = first_difference(left[key], right[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(left, list) and isinstance(right, list):
        if len(left) != len(right):
            return f"{path}: {len(left)} items vs {len(right)}"
        for index, (a, b) in enumerate(zip(left, right, strict=True)):
            found = first_difference(a, b, f"{path}[{index}]")
            if found:
                return found
        return None
    if left != right or (type(left) is not type(right) and not (
        isinstance(left, int | float) and isinstance(right, int | float)
    )):
        return f"{path}: statekit {json.dumps(left)[:200]} != node {json.dumps(right)[:200]}"
    return None
