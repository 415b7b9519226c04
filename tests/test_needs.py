"""The shared "needs X" check (tests/needs.py, wired in tests/conftest.py): skip locally, fail in CI."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from needs import in_ci

pytest_plugins = ["pytester"]

TESTS = Path(__file__).resolve().parent

INNER = """
import pytest

from needs import missing

@pytest.mark.needs(False, "a thing", "install it")
def test_marked():
    pass

def test_at_run_time():
    missing("another thing", "get it")

@pytest.mark.needs(True, "a present thing", "nothing to do")
def test_present():
    pass
"""


# Under CI a marked test fails in its setup (an error), a run-time `missing` in its body (a failure).
@pytest.mark.parametrize(
    ("ci", "outcome"), [("", {"skipped": 2, "passed": 1}), ("true", {"errors": 1, "failed": 1, "passed": 1})]
)
def test_missing_skips_locally_and_fails_under_ci(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                  ci: str, outcome: dict[str, int]) -> None:
    monkeypatch.setenv("CI", ci)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]))
    pytester.makeconftest((TESTS / "conftest.py").read_text(encoding="utf-8"))  # the real root conftest
    pytester.makepyfile(test_inner=INNER)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(**outcome)
    if ci:
        result.stdout.fnmatch_lines(["*a thing is required in CI and missing (install it)*"])


def test_ci_is_read_as_a_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    for value, expected in (("true", True), ("1", True), ("", False), ("false", False), ("0", False)):
        monkeypatch.setenv("CI", value)
        assert in_ci() is expected
