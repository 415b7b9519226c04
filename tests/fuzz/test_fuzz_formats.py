"""Fuzzing every format reader: any input gives a model or a coded error, never anything else.

Bounded: `STATEKIT_FUZZ_EXAMPLES` examples per format (default 60), no per-example deadline
(a slow machine is not a failure here; the call budget tests cover time).
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from statekit.errors import ERROR_CODES, ToolError
from statekit.formats import read_any, readable_formats

from .fuzz_strategies import documents, seed_documents

EXAMPLES = int(os.environ.get("STATEKIT_FUZZ_EXAMPLES", "60"))
SEEDS = [d for d in seed_documents() if isinstance(d, str)]


def read_or_coded_error(document: Any, format_name: str | None) -> None:
    try:
        outcome = read_any(document, format_name)
    except ToolError as error:
        assert error.code in ERROR_CODES and error.code != "internal_error", (error.code, error.message)
        assert isinstance(error.message, str) and error.message
        return
    assert outcome.model is not None


@pytest.mark.parametrize("format_name", [*readable_formats(), None], ids=lambda f: f or "detected")
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(document=documents(SEEDS))
def test_every_reader_gives_a_model_or_a_coded_error(format_name: str | None, document: Any) -> None:
    read_or_coded_error(document, format_name)
