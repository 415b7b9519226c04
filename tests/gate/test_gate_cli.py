"""`statekit gate ...` over a store URL: list, inspect, force (validated), reset, delete."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gate_workflows import INVOICE

from statekit.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_gate_command_repairs_workflows_in_a_sqlite_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    workflow = tmp_path / "invoice.json"
    workflow.write_text(json.dumps(INVOICE))
    common = ["--store", f"sqlite:{tmp_path / 'gate.db'}", "--workflow", str(workflow)]
    code, out, _ = run(capsys, "gate", "force", *common, "handle:abc", "review")
    assert code == 0 and json.loads(out)["state"] == "review"
    code, out, _ = run(capsys, "gate", "list", *common)
    assert json.loads(out) == ["handle:abc"]
    code, out, _ = run(capsys, "gate", "inspect", *common, "handle:abc")
    record = json.loads(out)
    assert record["key"] == "invoice/handle:abc"
    assert record["history"][-1]["event"] == "statekit.admin.force"
    code, _, err = run(capsys, "gate", "force", *common, "handle:abc", "paid")
    assert code == 2 and "invalid_input" in err and "paid" in err
    code, out, _ = run(capsys, "gate", "reset", *common, "handle:abc")
    assert json.loads(out)["state"] == "draft"
    code, out, _ = run(capsys, "gate", "delete", *common, "handle:abc")
    assert json.loads(out) == {"deleted": True}
    code, _, err = run(capsys, "gate", "inspect", *common, "handle:abc")
    assert code == 1 and "no workflow" in err
    code, _, err = run(capsys, "gate", "list", "--store", "memory:", "--workflow", str(workflow))
    assert code == 2 and "unknown store URL" in err
