"""What a test needs from outside Python: skip locally when it is missing, fail under CI=true.

CI must never pass by skipping: a test that needs node, Redis, Chromium, a layout engine or a
corpus skips on a developer's machine that lacks it and fails under `CI=true` (set by
`bash .ci/run`'s caller). Use

* `@pytest.mark.needs(available, "what", "how to get it")` on a test, class or module
  (`pytestmark = ...`): the root conftest checks it before the test runs;
* `require(available, "what", "how")` or `missing("what", "how")` inside a test or fixture,
  for what is only known at run time.

`SHARED` is the team's shared/ folder (corpora such as the W3C SCXML suite): beside the
repository, as in CI; from a git worktree, beside the main checkout.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

import pytest

REPO = Path(__file__).resolve().parents[1]


def in_ci() -> bool:
    """Whether this run is CI's (`CI` set to anything but empty, 0 or false)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false")


def missing(what: str, how: str) -> NoReturn:
    """`what` is not here: fail under CI, else skip, saying how to get it."""
    if in_ci():
        pytest.fail(f"{what} is required in CI and missing ({how})", pytrace=False)
    pytest.skip(f"{what} is missing ({how}); CI is unset", allow_module_level=True)


def require(available: object, what: str, how: str) -> None:
    """`missing(what, how)` unless `available` is true."""
    if not available:
        missing(what, how)


def _shared() -> Path:
    configured = os.environ.get("STATEKIT_SHARED")
    if configured:
        return Path(configured)
    beside = REPO.parent / "shared"
    git = REPO / ".git"
    if not beside.is_dir() and git.is_file():  # a worktree: `gitdir: <main>/.git/worktrees/NAME`
        gitdir = Path(git.read_text(encoding="utf-8").partition("gitdir:")[2].strip())
        main_checkout = gitdir.parents[1].parent
        if (main_checkout.parent / "shared").is_dir():
            return main_checkout.parent / "shared"
    return beside


SHARED = _shared()
