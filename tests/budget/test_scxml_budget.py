"""SCXML runs under the call's budget: output counted as it is made, every loop checking the clock.

Two attacks of issue 21, reproduced on e361e51 and refused here, through `statekit.tools.call`
and through the real server (`statekit serve`, its own process, stdio and HTTP, with the
official `mcp` SDK client):

- a 213-byte document whose state logs `'x'.repeat(10000000)` on entry, simulated on 100
  events, built ~3 GB before `output_too_large` was decided at the end; now each log charges
  the output budget as it is made, and the run stops at the second log;
- an invoked child that sends twice to its parent while the parent re-enters (each entry
  invokes a new child) ran past the call's deadline: the caller was answered
  `deadline_exceeded` while the server's worker thread kept burning CPU. Now the interpreter's
  loops check the budget, so the work stops; the test measures the server's CPU time after
  the answer, not how fast anything ran.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
import tracemalloc
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

import statekit
from statekit.budget import CallBudget
from statekit.errors import ToolError
from statekit.tools import call

#: The server runs the statekit this test imports (so the test can be pointed at another tree).
SRC = str(Path(statekit.__file__).resolve().parents[1])
SCXML = 'xmlns="http://www.w3.org/2005/07/scxml" datamodel="ecmascript"'
#: The attack as reported: 10 MB logged on every entry, the state re-entered on every event.
LOGGING = (f'<scxml {SCXML} initial="a"><state id="a"><onentry><log expr="\'x\'.repeat(10000000)"/>'
           '</onentry><transition event="e" target="a"/></state></scxml>')
ONE_LOG_BYTES = 10_000_000


def reentering(child_script: str = "") -> str:
    """A parent whose state invokes a child that sends it two events; each one re-enters the
    state, which cancels the child and invokes a new one: one more event queued per event."""
    child = (f'<scxml {SCXML} initial="c"><state id="c"><onentry>{child_script}'
             '<send event="ping" target="#_parent"/><send event="ping" target="#_parent"/>'
             '</onentry></state></scxml>')
    return (f'<scxml {SCXML} initial="a"><state id="a"><invoke type="scxml"><content>{child}</content></invoke>'
            '<transition event="ping" target="a"/></state></scxml>')


#: Each child also spends a little sandboxed CPU (well under QuickJS's per-call limit), so the
#: unchecked run outlasts any deadline by far.
BUSY_CHILD = "<script>var n = 0; while (n &lt; 2000000) { n++; }</script>"


# -- through statekit.tools.call -----------------------------------------------------------------

def test_the_logging_document_is_213_bytes_or_less() -> None:
    assert len(LOGGING.encode()) <= 213


def test_logged_output_is_counted_as_it_is_made_and_stops_the_run_early() -> None:
    budget = CallBudget(seconds=None)
    tracemalloc.start()
    try:
        with pytest.raises(ToolError) as refused:
            call("simulate_machine", {"machine": LOGGING, "events": ["e"] * 100}, budget=budget)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert refused.value.code == "output_too_large"
    limit = budget.max_output_bytes
    assert limit is not None
    # Stopped at the first log past the limit, not after 101 of them (1 GB of logs).
    assert limit < budget.output_bytes <= limit + ONE_LOG_BYTES + 64
    # Python's peak is a few copies of one log, never the run's worth.
    assert peak < 8 * ONE_LOG_BYTES, f"peak {peak / 1e6:.0f} MB"


def test_a_datamodel_snapshot_counts_toward_the_output_limit() -> None:
    document = (f'<scxml {SCXML} initial="a"><datamodel><data id="big" expr="\'y\'.repeat(300000)"/></datamodel>'
                '<state id="a"><transition event="e" target="a"/></state></scxml>')
    budget = CallBudget(seconds=None, max_output_bytes=1_000_000)
    with pytest.raises(ToolError) as refused:
        call("simulate_machine", {"machine": document, "events": ["e"] * 100}, budget=budget)
    assert refused.value.code == "output_too_large"
    # Counted step by step: stopped at the first snapshot past the limit.
    assert 1_000_000 < budget.output_bytes < 1_000_000 + 2 * 300_100


def test_small_scxml_output_is_counted_once_and_answered() -> None:
    document = (f'<scxml {SCXML} initial="a"><state id="a"><onentry><log label="n" expr="\'z\'.repeat(1000)"/>'
                '</onentry><transition event="e" target="a"/></state></scxml>')
    budget = CallBudget(seconds=None)
    result = call("simulate_machine", {"machine": document, "events": ["e"] * 50}, budget=budget)
    assert len(result["steps"]) == 51
    import json

    size = len(json.dumps(result, ensure_ascii=False))
    assert size * 0.8 < budget.output_bytes < size * 1.2  # counted as made, about once


def test_a_reentering_parent_stops_at_the_call_deadline() -> None:
    with pytest.raises(ToolError) as stopped:
        call("simulate_machine", {"machine": reentering(), "events": ["e"] * 100},
             budget=CallBudget(seconds=0.5))
    assert stopped.value.code == "deadline_exceeded"


def test_an_abandoned_scxml_run_stops_when_its_budget_is_cancelled() -> None:
    """What the server does when it answers a call it gave up on: it cancels the budget; the
    thread still running the work stops at its next check (its CPU time stops growing)."""
    budget = CallBudget(seconds=None)
    outcome: list[BaseException] = []

    def work() -> None:
        try:
            call("simulate_machine", {"machine": reentering(BUSY_CHILD), "events": ["e"] * 100}, budget=budget)
        except ToolError as error:
            outcome.append(error)

    worker = threading.Thread(target=work)
    worker.start()
    time.sleep(1.0)  # the run is well under way (it would go on for minutes)
    budget.cancel()
    worker.join(timeout=30)
    assert not worker.is_alive(), "the abandoned run did not stop"
    assert [getattr(error, "code", None) for error in outcome] == ["cancelled"]


# -- through the real server -----------------------------------------------------------------------

def _server_args(call_timeout: str, *extra: str) -> list[str]:
    return ["-m", "statekit.server", "--call-timeout", call_timeout, *extra]


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": SRC, "STATEKIT_PROVIDER": "none"}
    env.pop("STATEKIT_CALL_TIMEOUT", None)
    env.pop("STATEKIT_MAX_OUTPUT_BYTES", None)
    return env


def _child_server_pid() -> int:
    """The pid of the `statekit.server` process this test process started (the SDK's stdio client
    starts it; its pid is not exposed)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == os.getpid() and b"statekit.server" in cmdline:
            found.append(int(entry.name))
    assert len(found) == 1, found
    return found[0]


def _stat(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def process_tree(root: int) -> list[int]:
    """`root` and every process below it (the server runs calls in worker processes)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int(_stat(int(entry.name))[1])
            except (OSError, IndexError):
                continue
    tree, frontier = [root], [root]
    while frontier:
        frontier = [pid for pid, parent in parents.items() if parent in frontier]
        tree += frontier
    return tree


def cpu_seconds(root: int) -> float:
    """CPU time of the server and its workers, live ones and (through cutime/cstime) reaped ones."""
    total = 0
    for pid in process_tree(root):
        try:
            fields = _stat(pid)
        except OSError:
            continue  # exited meanwhile: its time is in its parent's cutime once reaped
        total += int(fields[11]) + int(fields[12]) + (int(fields[13]) + int(fields[14]) if pid == root else 0)
    return total / os.sysconf("SC_CLK_TCK")


def resident_mb(root: int) -> float:
    """The resident size of the server and its workers together."""
    total = 0
    for pid in process_tree(root):
        try:
            match = re.search(r"VmRSS:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
        except OSError:
            continue
        if match:
            total += int(match.group(1))
    return total / 1024


@contextmanager
def sampled_peak(root: int) -> Iterator[list[float]]:
    """Sample `resident_mb(root)` every 20 ms while the block runs; yields `[peak]`. Sampled, since
    the supervisor replaces a worker that grew (its own peak goes with it)."""
    peak = [resident_mb(root)]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.02):
            peak[0] = max(peak[0], resident_mb(root))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        yield peak
    finally:
        done.set()
        sampler.join()


@asynccontextmanager
async def served(transport: str, call_timeout: str = "1") -> AsyncIterator[tuple[Client, int]]:
    if transport == "stdio":
        parameters = StdioServerParameters(command=sys.executable, args=_server_args(call_timeout), env=_env())
        async with Client(parameters, mode="2026-07-28") as client:
            yield client, _child_server_pid()
        return
    process = subprocess.Popen([sys.executable, *_server_args(call_timeout, "--http", "--auth", "none", "--port", "0")],
                               env=_env(), stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    try:
        url = None
        for _ in range(50):
            match = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", process.stderr.readline())
            if match:
                url = match.group(1)
                break
        assert url, "the HTTP server did not print its URL"
        http = create_mcp_http_client()
        async with http, Client(streamable_http_client(url, http_client=http), mode="2026-07-28") as client:
            yield client, process.pid
    finally:
        process.terminate()
        process.wait(timeout=10)


def error_code(result: Any) -> str | None:
    assert result.is_error, result.content
    return (result.structured_content or {}).get("code")


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_the_logging_attack_on_the_server_stops_early(transport: str) -> None:
    async with served(transport, call_timeout="60") as (client, pid):
        small = f'<scxml {SCXML} initial="a"><datamodel><data id="n" expr="1"/></datamodel><state id="a"/></scxml>'
        warm = await client.call_tool("simulate_machine", {"machine": small, "events": []})
        assert not warm.is_error  # the process that runs calls has run one (and loaded QuickJS)
        baseline = resident_mb(pid)
        with sampled_peak(pid) as peak:
            result = await client.call_tool("simulate_machine", {"machine": LOGGING, "events": ["e"] * 100})
        assert error_code(result) == "output_too_large"
        # e361e51 peaked near 3 GB here; a few copies of one 10 MB log are all that is ever held.
        print(f"\n{transport}: the server's processes grew from {baseline:.0f} to {peak[0]:.0f} MB")
        assert peak[0] - baseline < 250, f"the server's processes grew from {baseline:.0f} to {peak[0]:.0f} MB"


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_the_reentering_attack_on_the_server_stops_using_cpu(transport: str) -> None:
    async with served(transport) as (client, pid):
        result = await client.call_tool("simulate_machine",
                                        {"machine": reentering(BUSY_CHILD), "events": ["e"] * 100})
        assert error_code(result) == "deadline_exceeded"
        time.sleep(1.0)  # the checks come at most one QuickJS call (0.5 s) after the deadline
        before = cpu_seconds(pid)
        time.sleep(2.0)
        spent = cpu_seconds(pid) - before
        # e361e51 went on with the abandoned run: 0.4-2 s of CPU in these 2 s, as busy as the
        # shared cores let it; an idle server spends a few ms.
        assert spent < 0.15, f"the server used {spent:.2f} s of CPU after answering"


def test_an_event_carrying_more_than_the_source_limit_is_delivered() -> None:
    """Event data is data, not source: e361e51 refused it at `set_event` with an uncoded
    ExecutionError (`internal_error`)."""
    document = (f'<scxml {SCXML} initial="a"><state id="a"><onentry><send event="big">'
                '<content expr="\'x\'.repeat(200000)"/></send></onentry>'
                '<transition event="big" cond="_event.data.length == 200000" target="done"/></state>'
                '<final id="done"/></scxml>')
    result = call("simulate_machine", {"machine": document, "events": []})
    assert result["steps"][-1]["status"] == "done"


def test_every_item_a_session_keeps_is_counted() -> None:
    """By construction: the report lists (`logs`, `raised`, `sent`, `errors`) grow only through
    `Session._keep`, which charges the output budget; an `append` elsewhere would skip it."""
    import ast
    import inspect

    from statekit.scxml import session

    tree = ast.parse(inspect.getsource(session))
    kept = {"logs", "raised", "sent", "errors"}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in
                ("append", "extend", "insert") and isinstance(node.func.value, ast.Attribute)):
            assert node.func.value.attr not in kept, f"line {node.lineno}: {ast.unparse(node)} skips _keep"


def test_a_planted_uncounted_log_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The forgetting planted: `_keep` without its charge. The run then goes on past the limit
    (only the end-of-call check refuses it), which the early-stop assertion sees."""
    from statekit.scxml.session import Session

    monkeypatch.setattr(Session, "_keep", lambda self, kept, item: kept.append(item))
    document = (f'<scxml {SCXML} initial="a"><state id="a"><onentry><log expr="\'x\'.repeat(100000)"/>'
                '</onentry><transition event="e" target="a"/></state></scxml>')
    budget = CallBudget(seconds=None, max_output_bytes=1_000_000)
    with pytest.raises(ToolError) as refused:
        call("simulate_machine", {"machine": document, "events": ["e"] * 100}, budget=budget)
    assert refused.value.code == "output_too_large"
    assert refused.value.details["size"] > 5_000_000  # built in full: what the charge prevents


def test_event_data_a_run_makes_is_bounded() -> None:
    """A `<foreach>` sending 10 MB of data 30 times held 300 MB of queued events (and on e361e51
    the first one to arrive was an uncoded `internal_error`). The run stops with a partial answer
    once its events carried 64 MiB."""
    document = (f'<scxml {SCXML} initial="a"><datamodel><data id="xs" expr="Array.from({{length: 30}})"/>'
                '</datamodel><state id="a"><onentry><foreach array="xs" item="i"><send event="big">'
                '<content expr="\'x\'.repeat(10000000)"/></send></foreach></onentry></state></scxml>')
    tracemalloc.start()
    try:
        result = call("simulate_machine", {"machine": document, "events": []}, budget=CallBudget(seconds=None))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    from statekit.scxml.system import MAX_EVENT_DATA_BYTES

    assert f"over {MAX_EVENT_DATA_BYTES} bytes of data" in (result["execution"]["stopped"] or "")
    assert peak < 120_000_000, f"peak {peak / 1e6:.0f} MB"


def test_the_quickjs_memory_limit_applies_to_strings_the_document_builds() -> None:
    """Each session's QuickJS context is capped at the sandbox's 32 MiB: the attack's 10 MB string
    fits, a 40 MB one stops the session (a coded, reported error, never the process's memory)."""
    from statekit.engine.sandbox import DEFAULT_MEMORY_LIMIT

    assert DEFAULT_MEMORY_LIMIT == 32 * 1024 * 1024
    document = (f'<scxml {SCXML} initial="a"><state id="a"><onentry><log expr="\'x\'.repeat(40000000)"/>'
                '</onentry></state></scxml>')
    last = call("simulate_machine", {"machine": document, "events": []})["steps"][-1]
    assert last["status"] == "error" and "memory limit" in last["error"], last
