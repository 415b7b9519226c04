"""The command line: commands run under a time budget (`--timeout`) and show progress on a terminal."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from statekit import cli
from statekit.budget import CallBudget, report_progress, running


def test_a_command_past_its_timeout_stops_with_deadline_exceeded(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    big = tmp_path / "big.d2"
    big.write_text("\n".join(f"s{i} -> s{i + 1}: E{i}" for i in range(40_000)))
    assert cli.main(["--timeout", "0.05", "validate", str(big)]) == 2
    assert "deadline_exceeded" in capsys.readouterr().err


def test_the_progress_bar_draws_reports_and_clears_itself() -> None:
    stream = io.StringIO()
    bar = cli.ProgressBar(stream)
    with running(CallBudget(seconds=None, on_progress=bar.update)):
        report_progress(5, 10, "half")
        report_progress(10, 10, "done")
    bar.close()
    text = stream.getvalue()
    assert "[###############...............]  50% half" in text and "100% done" in text
    assert text.endswith("\r\x1b[K")
