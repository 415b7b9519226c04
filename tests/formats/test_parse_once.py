"""A machine document is parsed once per call: detection and the reader share one `Source`."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from statekit.tools import call

YAML = "id: m\ninitial: a\nstates:\n  a:\n    on:\n      GO: b\n  b: {}\n"
JSON = json.dumps({"id": "m", "initial": "a", "states": {"a": {"on": {"GO": "b"}}, "b": {}}})
CALLS = [
    ("validate_machine", {}),
    ("simulate_machine", {"events": ["GO"]}),
    ("convert_machine", {"to": "scxml"}),
    ("generate_graph_paths", {"algorithm": "shortest"}),
]


@pytest.mark.parametrize(("tool", "extra"), CALLS, ids=[tool for tool, _ in CALLS])
@pytest.mark.parametrize("text", [YAML, JSON], ids=["yaml", "json"])
def test_the_machine_text_is_parsed_once(monkeypatch: pytest.MonkeyPatch, tool: str, extra: dict[str, Any],
                                         text: str) -> None:
    call(tool, {"machine": text, **extra})  # first call: schemas and modules load
    parses: list[str] = []
    real_yaml, real_json = yaml.load, json.loads

    def counting_yaml(stream: Any, *args: Any, **kwargs: Any) -> Any:
        parses.append("yaml")
        return real_yaml(stream, *args, **kwargs)

    def counting_json(document: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(document, str) and document.strip() == text.strip():
            parses.append("json")
        return real_json(document, *args, **kwargs)

    monkeypatch.setattr(yaml, "load", counting_yaml)
    monkeypatch.setattr(json, "loads", counting_json)
    call(tool, {"machine": text, **extra})
    if text is YAML:  # one YAML parse, after at most one JSON attempt (JSON is tried first)
        assert parses.count("yaml") == 1 and parses.count("json") <= 1, parses
    else:
        assert parses == ["json"]
