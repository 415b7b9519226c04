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
import resource
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from statekit.errors import ToolError
from statekit.verify.adapter import PathResult, VerificationRequest
from statekit.verify.planner import _ids_of_value

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
            try:
                completed = subprocess.run(
                    command, input=json.dumps(payload), capture_output=True, text=True, cwd=workdir, env=env,
                    timeout=request.policy.timeout_seconds, preexec_fn=lambda: _limit_resources(cpu), check=False,
                )
            except subprocess.TimeoutExpired:
                raise ToolError("verification_unavailable",
                                f"the driver run took longer than {request.policy.timeout_seconds} s") from None
        try:
            answer = json.loads(completed.stdout)
        except json.JSONDecodeError:
            raise ToolError("verification_unavailable",
                            f"the driver process failed (exit {completed.returncode})") from None
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


def _initial_value(request: VerificationRequest) -> Any:
    from statekit.analysis.simulate import build_simulation_machine
    from statekit.engine.api import initial_transition

    machine, _ = build_simulation_machine(request.model, None)
    snapshot, _ = initial_transition(machine)
    return snapshot.value
