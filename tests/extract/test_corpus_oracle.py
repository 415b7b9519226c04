"""Every corpus file: statekit's static extraction equals what XState builds from it in node."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from extract_oracle import first_difference, node_machine_configs, normalize_codes, require_node

from statekit.extract import extract_machines

CORPUS = Path(__file__).parent / "corpus"
SOURCE_SUFFIXES = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs")
FILES = sorted(path for path in CORPUS.iterdir() if path.suffix in SOURCE_SUFFIXES)


@pytest.fixture(scope="module")
def node_side() -> dict[str, Any]:
    require_node()
    return node_machine_configs(FILES)


@pytest.fixture(scope="module")
def statekit_side() -> dict[str, Any]:
    """Each file's extraction, code strings normalised in one node call for the whole corpus."""
    require_node()
    extracted = {path.name: extract_machines(path.read_text(encoding="utf-8"), path.name) for path in FILES}
    configs = normalize_codes({name: [m["config"] for m in result["machines"]] for name, result in extracted.items()})
    return {name: {"errors": result["errors"], "configs": configs[name]} for name, result in extracted.items()}


def test_corpus_is_large_and_mixed() -> None:
    assert len(FILES) >= 40
    suffixes = {path.suffix for path in FILES}
    assert {".ts", ".js"} <= suffixes


@pytest.mark.parametrize("path", FILES, ids=[path.name for path in FILES])
def test_extraction_matches_xstate(path: Path, node_side: dict[str, Any], statekit_side: dict[str, Any]) -> None:
    expected = node_side[str(path.resolve())]
    assert "error" not in expected, expected.get("error")
    assert expected["machines"], "the corpus file creates no machine in node"
    extracted = statekit_side[path.name]
    assert extracted["errors"] == []
    difference = first_difference(extracted["configs"], expected["machines"])
    assert difference is None, difference
