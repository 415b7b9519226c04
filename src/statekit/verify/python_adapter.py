"""A real verification adapter: model-based testing of a Python system under test.

A driver module maps events to calls and states to assertions (see `runner.py`). The
adapter runs the driver in a separate Python process, isolated: no network (a fresh network
namespace via `unshare -rn`), a minimal environment, CPU, memory and wall-clock limits.
A host opts in by passing `PythonDriverAdapter(...)` as its `execute_verification` adapter;
drivers are host-registered module names, and inline driver code from a caller runs only
when the host allows it.
"""

from __future__ import annotations

import json
import os
import queue
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from statekit.budget import check_budget, report_progress
from statekit.errors import ToolError
from statekit.verify.adapter import PathResult, VerificationRequest
from statekit.verify.planner import _ids_of_value
from statekit.verify.runner import PROGRESS_PREFIX

RUNNER = Path(__file__).with_name("runner.py")
MEMORY_LIMIT = 1024 * 1024 * 1024


def network_isolation_available() -> bool:
    """Whether `unshare -rn` can give the driver a namespace without network."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return False
    try:
        return subprocess.run([unshare, "-rn", "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _limit_resources(cpu_seconds: int) -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds))
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


class PythonDriverAdapter:
    """`execute_verification` for Python systems under test."""

    def __init__(self, drivers: Mapping[str, str] | None = None, *, allow_inline_drivers: bool = False,
                 python: str = sys.executable, extra_paths: Sequence[str] = ()) -> None:
        self.drivers = dict(drivers or {})
        self.allow_inline_drivers = allow_inline_drivers
        self.python = python
        self.extra_paths = list(extra_paths)
        self.name = "python-driver"

    def __call__(self, request: VerificationRequest) -> list[PathResult]:
        if request.policy.network or request.policy.ai:
            raise ToolError("invalid_input", "this adapter only runs under a no-AI, no-network policy")
        if not network_isolation_available():
            raise ToolError("verification_unavailable", "network isolation (unshare -rn) is not available on this host")
        with tempfile.TemporaryDirectory(prefix="statekit-verify-") as workdir:
            driver = self._driver(request, Path(workdir))
            initial_keys = self._state_keys(request, _initial_value(request))
            payload = {"paths": [self._runner_path(request, path, initial_keys) for path in request.paths],
                       "pathTimeout": request.policy.path_timeout_seconds}
            env = {"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1", "LANG": "C.UTF-8",
                   "PYTHONPATH": os.pathsep.join(self.extra_paths)}
            command = [shutil.which("unshare") or "unshare", "-rn", self.python, "-s", str(RUNNER), driver]
            cpu = max(1, int(request.policy.timeout_seconds))
            stdout = _run_runner(command, json.dumps(payload), workdir, env, cpu, request.policy.timeout_seconds,
                                 len(request.paths))
        try:
            answer = json.loads(stdout)
        except json.JSONDecodeError:
            raise ToolError("verification_unavailable", "the driver process failed (no result)") from None
        if "error" in answer:
            raise ToolError("invalid_input", str(answer["error"]))
        return [PathResult(r["pathId"], r["status"], r.get("failedStep"), r.get("message"), r.get("durationMs", 0.0))
                for r in answer["results"]]

    def _driver(self, request: VerificationRequest, workdir: Path) -> str:
        for binding in request.bindings:
            if binding.name and binding.name in self.drivers:
                return self.drivers[binding.name]
        inline = [b for b in request.bindings if b.content]
        if inline:
            if not self.allow_inline_drivers:
                raise ToolError("invalid_input", "inline driver code is not allowed on this host; name a registered "
                                f"driver ({', '.join(sorted(self.drivers)) or 'none registered'})")
            path = workdir / "driver.py"
            path.write_text(inline[0].content or "", encoding="utf-8")
            return str(path)
        if len(self.drivers) == 1:
            return next(iter(self.drivers.values()))
        raise ToolError("invalid_input", "name the driver to run in `bindings` "
                        f"({', '.join(sorted(self.drivers)) or 'none registered'})")

    @staticmethod
    def _state_keys(request: VerificationRequest, value: Any) -> list[str]:
        model = request.model
        keys: list[str] = []
        for state_id in sorted(_ids_of_value(model, value), key=list(model.nodes).index):
            node = model.nodes[state_id]
            keys.extend(dict.fromkeys([".".join(node.path), state_id, node.key]))
        return keys

    def _runner_path(self, request: VerificationRequest, path: Mapping[str, Any], initial_keys: list[str]) -> dict[str, Any]:
        return {
            "id": path["id"],
            "initialStateKeys": initial_keys,
            "steps": [{"event": step["event"], "stateKeys": self._state_keys(request, step["state"])}
                      for step in path["steps"]],
        }


def _run_runner(command: list[str], payload: str, workdir: str, env: dict[str, str], cpu: int,
                timeout: float, total: int) -> str:
    """Run the runner; report a path's end as progress, stop it at the call's deadline or cancel.

    The runner writes one progress line per finished path on stderr; the results come as
    one JSON document on stdout. The process is killed when the policy's timeout passes, and
    as soon as the call runs out of time or is cancelled (`check_budget` raises then).
    """
    deadline = time.monotonic() + timeout
    lines: queue.Queue[str | None] = queue.Queue()
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, cwd=workdir, env=env, preexec_fn=lambda: _limit_resources(cpu)) as process:
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        output: list[str] = []
        stdout = process.stdout
        readers = [threading.Thread(target=lambda: output.append(stdout.read()), daemon=True),
                   threading.Thread(target=_forward_lines, args=(process.stderr, lines), daemon=True)]
        for reader in readers:
            reader.start()
        try:
            process.stdin.write(payload)
            process.stdin.close()
            finished = False
            while not finished:
                check_budget()
                if time.monotonic() > deadline:
                    raise ToolError("verification_unavailable", f"the driver run took longer than {timeout} s")
                try:
                    line = lines.get(timeout=0.1)
                except queue.Empty:
                    continue
                if line is None:
                    finished = True
                elif line.startswith(PROGRESS_PREFIX):
                    done = line[len(PROGRESS_PREFIX):].partition("/")[0]
                    if done.isdigit():
                        report_progress(int(done), total, f"{done} of {total} paths run")
        except BaseException:
            process.kill()
            raise
        process.wait()
        readers[0].join()
    return output[0] if output else ""


def _forward_lines(stream: Any, lines: queue.Queue[str | None]) -> None:
    for line in stream:
        lines.put(line.rstrip("\n"))
    lines.put(None)


def _initial_value(request: VerificationRequest) -> Any:
    from statekit.analysis.simulate import build_simulation_machine
    from statekit.engine.api import initial_transition

    machine, _ = build_simulation_machine(request.machine, None)
    snapshot, _ = initial_transition(machine)
    return snapshot.value


def adapter_from_options(drivers: Sequence[str], paths: Sequence[str] = ()) -> PythonDriverAdapter | None:
    """The adapter `--verify-driver NAME=MODULE` and `--verify-path DIR` describe, or None without drivers.

    `statekit serve` and `statekit call` read the same two options through this one function.
    """
    if not drivers:
        return None
    named: dict[str, str] = {}
    for item in drivers:
        name, _, module = item.partition("=")
        if not name or not module:
            raise ValueError(f"--verify-driver takes NAME=MODULE, not {item!r}")
        named[name] = module
    return PythonDriverAdapter(named, extra_paths=[os.path.abspath(path) for path in paths])
