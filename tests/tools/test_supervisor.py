"""The call supervisor: a call's time and memory are bounded by the process that runs it.

The hostile tools (`supervisor_tools.py`) never check their budget: only the supervisor can stop
them. Time is measured by what happens to the worker (its process is gone), never by the clock.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import supervisor_tools as hostile

from statekit.budget import CallBudget
from statekit.errors import ToolError
from statekit.tools import registry
from statekit.tools import supervisor as supervisor_module
from statekit.tools.launchers import read_status
from statekit.tools.registry import ToolContext
from statekit.tools.supervisor import LONG_CALL_NICE, Supervisor

MEMORY = 128 * 1024 * 1024


@pytest.fixture(scope="module")
def supervisor() -> Iterator[Supervisor]:
    with Supervisor(workers=2) as pool:
        yield pool


def _context(**overrides: object) -> ToolContext:
    settings: dict[str, object] = {"call_memory": MEMORY, "call_seconds": 20.0}
    settings.update(overrides)
    return ToolContext(**settings)  # type: ignore[arg-type]


def _alive(pid: int) -> bool:
    """Whether process `pid` still exists (a zombie counts as gone: it runs nothing)."""
    status = read_status(f"/proc/{pid}/status")
    if not status:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _pid_from(path: Path) -> int:
    for _ in range(600):
        if path.exists() and path.read_text():
            return int(path.read_text())
        time.sleep(0.05)
    raise AssertionError("the tool never started")


def test_a_call_runs_in_a_worker_process_not_the_caller(supervisor: Supervisor) -> None:
    result = supervisor.call(hostile.PID, {}, _context())
    assert result["pid"] != os.getpid()
    assert result["pid"] in supervisor.worker_pids()


def test_a_built_in_tool_gives_the_same_answer_supervised_and_in_process(supervisor: Supervisor) -> None:
    machine = {"id": "t", "initial": "a", "states": {"a": {"on": {"GO": "b"}}, "b": {"type": "final"}}}
    arguments = {"machine": machine, "events": ["GO"]}
    assert supervisor.call("simulate_machine", arguments, _context()) == registry.call("simulate_machine", arguments)


def test_unbounded_allocation_answers_resource_exhausted_and_the_worker_is_replaced(
        supervisor: Supervisor, tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    with pytest.raises(ToolError) as caught:
        supervisor.call(hostile.HOG, {"pidFile": str(pid_file)}, _context())
    assert caught.value.code == "resource_exhausted"
    assert caught.value.details["limit"] == MEMORY
    assert not _alive(_pid_from(pid_file)), "the worker that ran out of memory is still there"
    # The pool is whole again and the next call succeeds.
    assert supervisor.call(hostile.PID, {}, _context())["pid"] != int(pid_file.read_text())


def test_a_memory_error_the_tool_swallowed_is_still_resource_exhausted(supervisor: Supervisor) -> None:
    """The tool turns its MemoryError into a normal answer; the supervisor still sees the ceiling."""
    with pytest.raises(ToolError) as caught:
        supervisor.call(hostile.HOG_AND_SWALLOW, {}, _context())
    assert caught.value.code == "resource_exhausted"


def test_a_call_that_never_checks_its_budget_is_killed_after_its_deadline(
        supervisor: Supervisor, tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    with pytest.raises(ToolError) as caught:
        supervisor.call(hostile.SPIN, {"pidFile": str(pid_file)}, _context(call_seconds=0.5))
    assert caught.value.code == "deadline_exceeded"
    assert not _alive(_pid_from(pid_file)), "the spinning worker outlived the answer"
    assert supervisor.call(hostile.PID, {}, _context())["pid"] != int(pid_file.read_text())


def test_a_cancelled_call_kills_its_work(supervisor: Supervisor, tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    budget = CallBudget(seconds=None)
    outcome: list[BaseException] = []

    def run() -> None:
        try:
            supervisor.call(hostile.SPIN, {"pidFile": str(pid_file)}, _context(), budget=budget)
        except BaseException as error:
            outcome.append(error)

    caller = threading.Thread(target=run)
    caller.start()
    worker = _pid_from(pid_file)
    budget.cancel()  # what the server does when the client cancels or goes away
    caller.join(30)
    assert not caller.is_alive()
    assert isinstance(outcome[0], ToolError) and outcome[0].code == "cancelled"
    assert not _alive(worker)


def test_a_worker_killed_from_outside_is_replaced_and_the_next_call_succeeds(
        supervisor: Supervisor, tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    outcome: list[BaseException] = []

    def run() -> None:
        try:
            supervisor.call(hostile.SPIN, {"pidFile": str(pid_file)}, _context())
        except BaseException as error:
            outcome.append(error)

    caller = threading.Thread(target=run)
    caller.start()
    worker = _pid_from(pid_file)
    os.kill(worker, 9)  # as the kernel's out-of-memory killer would
    caller.join(30)
    assert isinstance(outcome[0], ToolError) and outcome[0].code == "resource_exhausted"
    for _ in range(2 * supervisor.workers):  # every worker, idle ones included, answers
        assert supervisor.call(hostile.PID, {}, _context())["pid"] != worker


def test_an_idle_worker_killed_from_outside_never_fails_a_call(supervisor: Supervisor) -> None:
    supervisor.call(hostile.PID, {}, _context())
    for pid in supervisor.worker_pids():
        os.kill(pid, 9)
    time.sleep(0.2)  # let them die; the next calls must not be sent to them
    assert supervisor.call(hostile.PID, {}, _context())["pid"] > 0


def test_the_output_limit_is_checked_in_the_worker(supervisor: Supervisor) -> None:
    with pytest.raises(ToolError) as caught:
        supervisor.call(hostile.BIG, {"size": 5000}, _context(max_output_bytes=1000))
    assert caught.value.code == "output_too_large"
    assert supervisor.call(hostile.BIG, {"size": 10}, _context())["text"] == "x" * 10


def test_progress_reports_cross_from_the_worker(supervisor: Supervisor) -> None:
    reports: list[tuple[float, float | None, str | None]] = []
    budget = CallBudget(seconds=20, on_progress=lambda done, total, message: reports.append((done, total, message)))
    assert supervisor.call(hostile.COUNTING, {}, _context(), budget=budget) == {"done": True}
    assert reports and reports[-1] == (3, 3, "step 3")


def test_a_host_side_tool_runs_here_and_its_compute_runs_in_a_worker(supervisor: Supervisor) -> None:
    result = supervisor.call(hostile.HOST_PID, {}, _context())
    assert result["host"] == os.getpid()
    assert result["work"] != os.getpid() and result["work"] in supervisor.worker_pids()
    # Without a supervisor, compute runs in the calling process.
    assert registry.run_call(hostile.HOST_PID, {}, _context())["work"] == os.getpid()


def test_compute_in_a_worker_is_bounded_too(supervisor: Supervisor) -> None:
    with pytest.raises(ToolError) as caught:
        supervisor.run_function(hostile.hog, ({},), memory=MEMORY)
    assert caught.value.code == "resource_exhausted"


def test_a_dotted_name_reaches_only_statekit_functions(supervisor: Supervisor) -> None:
    with pytest.raises(ToolError) as caught:
        supervisor.run_function("os.getpid", ())
    assert caught.value.code == "internal_error"
    assert supervisor.run_function("statekit.budget.parse_byte_size", ("2K",)) == 2048


def test_a_tool_whose_function_cannot_cross_is_refused_not_run_in_process(supervisor: Supervisor) -> None:
    closure = registry.ToolSpec(name="test_closure", title="c", description="c", input_schema={"type": "object"},
                                output_schema={"type": "object"}, function=lambda arguments: {"pid": os.getpid()})
    with pytest.raises(ToolError) as caught:
        supervisor.call(closure, {}, _context())
    assert caught.value.code == "internal_error"


def test_workers_are_recycled_after_their_call_quota() -> None:
    with Supervisor(workers=1, max_calls=2) as pool:
        pids = [pool.call(hostile.PID, {}, _context())["pid"] for _ in range(5)]
    assert len(set(pids)) == 3  # 2 + 2 + 1


def test_memory_sizes_read_as_binary_units(monkeypatch: pytest.MonkeyPatch) -> None:
    from statekit.budget import DEFAULT_CALL_MEMORY, parse_byte_size

    assert [parse_byte_size(text) for text in ("1024", "512M", "512MiB", "1G", "1.5g", "64 kb")] == [
        1024, 512 * 2**20, 512 * 2**20, 2**30, 3 * 2**29, 64 * 1024]
    for bad in ("", "12X", "-1M", "0", "M"):
        with pytest.raises(ValueError):
            parse_byte_size(bad)
    monkeypatch.delenv("STATEKIT_CALL_MEMORY", raising=False)
    assert ToolContext.from_environment().call_memory == DEFAULT_CALL_MEMORY == 2**30
    monkeypatch.setenv("STATEKIT_CALL_MEMORY", "256M")
    assert ToolContext.from_environment().call_memory == 256 * 2**20
    monkeypatch.setenv("STATEKIT_CALL_MEMORY", "lots")
    with pytest.raises(ValueError):
        ToolContext.from_environment()


def test_a_long_call_holding_every_worker_does_not_starve_the_next_call(tmp_path: Path) -> None:
    """Hostile clients that keep every worker busy until their deadline: a spare worker was
    started as soon as the worker was taken, the next call runs there, and the pool shrinks back
    to its size once its calls are over."""
    pid_file = tmp_path / "pid"
    budget = CallBudget(seconds=None)
    with Supervisor(workers=1, max_workers=2, surplus_idle_seconds=0.2) as pool:
        holder = threading.Thread(target=lambda: _swallow(pool.call, hostile.SPIN, {"pidFile": str(pid_file)},
                                                          _context(), budget=budget))
        holder.start()
        spinning = _pid_from(pid_file)
        answered = pool.call(hostile.PID, {}, _context())["pid"]
        assert answered != spinning and pool.counts["grown"] == 1
        budget.cancel()
        holder.join(30)
        assert not _alive(spinning)
        for _ in range(600):  # the extra worker leaves once idle
            if len(pool.worker_pids()) == 1:
                break
            time.sleep(0.05)
        assert len(pool.worker_pids()) == 1 and spinning not in pool.worker_pids()


def _spin_in_background(pool: Supervisor, pid_file: Path) -> tuple[threading.Thread, CallBudget, int]:
    budget = CallBudget(seconds=None)
    holder = threading.Thread(target=lambda: _swallow(pool.call, hostile.SPIN, {"pidFile": str(pid_file)},
                                                      _context(), budget=budget))
    holder.start()
    return holder, budget, _pid_from(pid_file)


def _wait_for(predicate: Any) -> bool:
    for _ in range(600):
        if predicate():
            return True
        time.sleep(0.05)
    return False


def test_a_spare_worker_is_started_while_a_call_runs(tmp_path: Path) -> None:
    """Rule 1: while a call runs an idle worker is already there, so the next call never waits
    for a fork; it is started when the worker is taken, not after the call has run a while."""
    with Supervisor(workers=1, max_workers=3, surplus_idle_seconds=60) as pool:
        assert _wait_for(lambda: len(pool.worker_pids()) == 1)
        holder, budget, spinning = _spin_in_background(pool, tmp_path / "pid")
        assert pool.counts["grown"] == 1  # the spare started when the spinner took its worker
        assert _wait_for(lambda: len(pool.worker_pids()) == 2)
        spare = [pid for pid in pool.worker_pids() if pid != spinning]
        assert pool.call(hostile.PID, {}, _context())["pid"] == spare[0]  # pre-started, not forked for it
        # That call took the spare: another was started for the next call, up to the cap.
        assert pool.counts["grown"] == 2
        second_holder, second_budget, _second = _spin_in_background(pool, tmp_path / "pid2")
        assert _wait_for(lambda: len(pool.worker_pids()) == 3)
        assert len(pool.worker_pids()) == pool.max_workers  # at the cap: no further spare
        for budget_, holder_ in ((budget, holder), (second_budget, second_holder)):
            budget_.cancel()
            holder_.join(30)


def test_a_long_calls_worker_is_reniced_and_set_back_for_its_next_call() -> None:
    """Rule 2: a call past `LONG_CALL_SECONDS` runs at `LONG_CALL_NICE`; its worker is back at
    nice 0 before it takes another call."""
    with Supervisor(workers=1, max_workers=1) as pool:
        result = pool.call(hostile.UNTIL_RENICED, {}, _context())
        assert result["nice"] == LONG_CALL_NICE and pool.counts["reniced"] == 1
        assert os.getpriority(os.PRIO_PROCESS, result["pid"]) == 0
        # Its own session, so its own scheduling group, lowered and set back with it.
        assert os.getsid(result["pid"]) == result["pid"]
        if _autogroups_on() and result["group"] is not None:
            assert result["group"].endswith(f" nice {LONG_CALL_NICE}")
            assert Path(f"/proc/{result['pid']}/autogroup").read_text().strip().endswith(" nice 0")
        assert pool.call(hostile.PID, {}, _context())["pid"] == result["pid"]  # reused, at nice 0


def _autogroups_on() -> bool:
    try:
        return Path("/proc/sys/kernel/sched_autogroup_enabled").read_text().strip() == "1"
    except OSError:
        return False


def test_a_reniced_worker_that_cannot_be_set_back_is_replaced(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without CAP_SYS_NICE a process cannot raise a priority again: the worker is recycled."""
    real = os.setpriority

    def unprivileged(which: int, who: int, value: int) -> None:
        if value < os.getpriority(which, who):
            raise PermissionError(1, "Operation not permitted")
        real(which, who, value)

    monkeypatch.setattr(supervisor_module.os, "setpriority", unprivileged)
    with Supervisor(workers=1, max_workers=1) as pool:
        result = pool.call(hostile.UNTIL_RENICED, {}, _context())
        assert result["nice"] == LONG_CALL_NICE
        assert pool.counts["recycled"] == 1 and not _alive(result["pid"])
        after = pool.call(hostile.PID, {}, _context())["pid"]
        assert after != result["pid"] and os.getpriority(os.PRIO_PROCESS, after) == 0


def _swallow(function: Any, *args: Any, **keywords: Any) -> None:
    with contextlib.suppress(ToolError):
        function(*args, **keywords)
