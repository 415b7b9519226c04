"""Every automatic W3C SCXML IRP test, run by statekit's interpreter (`statekit.scxml`).

Mandatory tests must reach `pass`. Optional tests are reported: those statekit does not support
are expected failures with their reason (strict, so a test that starts passing is noticed).
Without the corpus the suite skips locally and fails under CI=true.
"""

from __future__ import annotations

import pytest
from w3c_corpus import (
    MANIFEST,
    NEEDS_FILES,
    W3cTest,
    automatic_tests,
    mandatory_count,
    outcome,
    run_file,
)

from needs import require

TESTS = automatic_tests()
MANDATORY = [t for t in TESTS if t.mandatory]
OPTIONAL = [t for t in TESTS if not t.mandatory]

#: Optional tests statekit does not pass, and why (see BENCHMARKS.md).
OPTIONAL_UNSUPPORTED = {
    "201": "the Basic HTTP event I/O processor is not implemented (statekit does no network I/O)",
    **{test: "the Basic HTTP event I/O processor is not implemented (statekit does no network I/O)"
       for test in ("509", "510", "518", "519", "520", "522", "531", "532", "534", "567", "577")},
}


def test_corpus_is_present() -> None:
    require(MANIFEST.is_file() and MANDATORY, "the W3C SCXML corpus", f"{MANIFEST} is missing")
    # Every mandatory automatic test of the manifest is run (none silently left out).
    assert len(MANDATORY) == mandatory_count() == 159


@pytest.mark.parametrize("test", MANDATORY, ids=[t.id for t in MANDATORY])
def test_mandatory(test: W3cTest) -> None:
    passed, what = outcome(test)
    assert passed, what


@pytest.mark.parametrize("test", [
    pytest.param(t, marks=pytest.mark.xfail(strict=True, reason=OPTIONAL_UNSUPPORTED[t.id]))
    if t.id in OPTIONAL_UNSUPPORTED else t
    for t in OPTIONAL
], ids=[t.id for t in OPTIONAL])
def test_optional(test: W3cTest) -> None:
    passed, what = outcome(test)
    assert passed, what


@pytest.mark.parametrize("test", [t for t in TESTS if t.id in NEEDS_FILES], ids=lambda t: t.id)
def test_file_sources_need_the_opt_in(test: W3cTest) -> None:
    """Without a base directory the tests that read files do not pass, and say why."""
    session = run_file(test.files[0], allow_files=False)
    assert session.final != "pass"
    assert any("file sources are off unless a base directory is given" in e for e in session.errors)
