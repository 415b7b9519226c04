"""Runs a driver against planned paths, in its own process. Standard library only.

Usage: python -I runner.py DRIVER  (a module name, or a path to a .py file); the paths come
as JSON on stdin, the results go to stdout as JSON. A driver module defines:

    def create(): ...                      # a fresh system under test for each path
    EVENTS = {"PLAY": lambda sut, event: sut.play(), ...}     # one handler per event type
    STATES = {"playing": lambda sut: sut.is_playing, ...}     # assertions by state path or id
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import signal
import sys
import time
import traceback
from types import ModuleType
from typing import Any


class PathTimeout(Exception):
    pass


#: How the runner marks a progress line on stderr (`statekit-progress 3/10`).
PROGRESS_PREFIX = "statekit-progress "


def _load(driver: str) -> ModuleType:
    if driver.endswith(".py"):
        spec = importlib.util.spec_from_file_location("statekit_driver", driver)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {driver}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    return importlib.import_module(driver)


def _check(states: dict[str, Any], keys: list[str], sut: Any) -> str | None:
    for key in keys:
        assertion = states.get(key)
        if assertion is None:
            continue
        try:
            ok = assertion(sut)
        except Exception as error:  # the assertion itself failed
            return f"state '{key}': assertion raised {type(error).__name__}: {error}"
        if not ok:
            return f"state '{key}': assertion failed"
    return None


def _on_alarm(signum: int, frame: Any) -> None:
    raise PathTimeout


def run_path(driver: ModuleType, path: dict[str, Any], timeout: float) -> dict[str, Any]:
    started = time.perf_counter()
    events = getattr(driver, "EVENTS", {})
    states = getattr(driver, "STATES", {})
    step_number: int | None = 0
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        sut = driver.create()
        failure = _check(states, path["initialStateKeys"], sut)
        if failure:
            return _result(path, "failed", 0, failure, started)
        for step_number, step in enumerate(path["steps"], start=1):
            event = step["event"]
            handler = events.get(event["type"])
            if handler is None:
                return _result(path, "error", step_number, f"the driver has no handler for event '{event['type']}'", started)
            handler(sut, event)
            failure = _check(states, step["stateKeys"], sut)
            if failure:
                return _result(path, "failed", step_number, failure, started)
        return _result(path, "passed", None, None, started)
    except PathTimeout:
        return _result(path, "error", step_number, f"the path took longer than {timeout} s", started)
    except Exception as error:
        last = traceback.extract_tb(error.__traceback__)[-1:]
        where = f" (line {last[0].lineno})" if last else ""
        return _result(path, "error", step_number, f"{type(error).__name__}: {error}{where}", started)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _result(path: dict[str, Any], status: str, step: int | None, message: str | None, started: float) -> dict[str, Any]:
    return {"pathId": path["id"], "status": status, "failedStep": step, "message": message,
            "durationMs": round((time.perf_counter() - started) * 1000, 3)}


def main() -> int:
    request = json.load(sys.stdin)
    signal.signal(signal.SIGALRM, _on_alarm)
    try:
        driver = _load(sys.argv[1])
    except Exception as error:
        json.dump({"error": f"the driver could not be loaded: {type(error).__name__}: {error}"}, sys.stdout)
        return 0
    if not callable(getattr(driver, "create", None)):
        json.dump({"error": "the driver defines no create() function"}, sys.stdout)
        return 0
    results = []
    total = len(request["paths"])
    for number, path in enumerate(request["paths"], start=1):
        results.append(run_path(driver, path, float(request["pathTimeout"])))
        # One line per finished path on stderr: the adapter turns them into progress reports.
        print(f"{PROGRESS_PREFIX}{number}/{total}", file=sys.stderr, flush=True)
    json.dump({"results": results}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
