"""XState's built-in names have one home: the Literal types in `statekit.model.core`.

Every "xstate.*" string literal in src/ must be one of them, so a misspelt built-in
("xstate.asign") fails here instead of silently never matching.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import get_args

import statekit
from statekit.model.core import (
    BUILTIN_ACTIONS,
    BUILTIN_GUARDS,
    INLINE_ACTOR_PREFIX,
    XSTATE_PREFIX,
    BuiltinActionType,
    BuiltinEventType,
    BuiltinGuardType,
)

SOURCE = Path(statekit.__file__).parent
KNOWN = {*get_args(BuiltinActionType), *get_args(BuiltinGuardType), *get_args(BuiltinEventType),
         XSTATE_PREFIX, INLINE_ACTOR_PREFIX}


def _xstate_literals() -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for path in sorted(SOURCE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                      and node.body and isinstance(node.body[0], ast.Expr)}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
                    and node.value.startswith(XSTATE_PREFIX)):
                found.append((f"{path.relative_to(SOURCE)}:{node.lineno}", node.value))
    return found


def test_the_tables_match_the_literal_types() -> None:
    assert set(BUILTIN_ACTIONS) == set(get_args(BuiltinActionType))
    assert set(get_args(BuiltinGuardType)) == BUILTIN_GUARDS


def test_every_xstate_literal_in_src_is_a_known_builtin() -> None:
    literals = _xstate_literals()
    assert len(literals) > 100  # the scan reads the sources
    # A trailing `*` makes an event descriptor of a prefix ("xstate.done.actor.*").
    unknown = [(where, value) for where, value in literals if value.removesuffix("*") not in KNOWN]
    assert unknown == []


def test_a_misspelt_builtin_would_be_caught() -> None:
    assert "xstate.asign" not in KNOWN and "xstate.assign" in KNOWN
