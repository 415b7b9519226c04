"""The W3C SCXML IRP suite executed by statekit, SCION and python-statemachine, side by side.

    python bench/scxml_suite.py                       # all peers, 3 rounds each
    python bench/scxml_suite.py --peers statekit --rounds 9
    python bench/scxml_suite.py --optional            # the optional automatic tests too

Every peer runs the same files (`shared/data/w3c-scxml`: the 159 mandatory automatic tests, the
ECMAScript versions, and the null-datamodel test 436), each round in a fresh subprocess. A test
passes when the run reaches the top-level final state `pass`; a test with several files (403)
passes when each does. Reported per peer: the pass count, the CPU time of the whole suite inside
the run (user + system of the process, all threads, from the first test's start to the last
test's end; module import and start-up left out), the CPU time of the whole process (start-up
included, from `getrusage`) and the wall time, best and median over the rounds.

The peers:

- statekit: `statekit.scxml` (ECMAScript in QuickJS), delayed events on its virtual clock, so
  no test waits for real time; `file:` sources allowed under the test folder only.
- SCION: `@scion-scxml/scxml` 4.3.27 on Node (bench/scion, pinned by its package-lock.json;
  installed with `npm ci` on the first run). Real timers: all tests run concurrently, 10 s timeout each.
- python-statemachine 3.2.2 (the `bench` extra): `statemachine.io.load(path, trusted=...)`,
  polled until it terminates (5 s timeout each, real timers). `trusted=True` evaluates the
  documents' expressions with Python `eval`/`exec` (their ECMAScript happens to be valid Python
  often enough); the default restricted evaluator refuses `<script>`.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = Path(os.environ.get("STATEKIT_W3C_SCXML") or ROOT.parent / "shared" / "data" / "w3c-scxml")
SCION_DIR = ROOT / "bench" / "scion"
PEERS = ("statekit", "scion", "psm-trusted", "psm")
LABELS = {
    "statekit": "statekit (ECMAScript in QuickJS)",
    "scion": "SCION (Node)",
    "psm-trusted": "python-statemachine trusted=True (Python eval)",
    "psm": "python-statemachine default (restricted)",
}


def suite(corpus: Path, optional: bool) -> list[dict[str, Any]]:
    tests = []
    with (corpus / "manifest.tsv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            if row["manual"] != "false" or (row["conformance"] != "mandatory" and not optional):
                continue
            folder = corpus / ("null" if row["id"] == "436" else "ecma")
            files = [folder / Path(s).name.replace(".txml", ".scxml") for s in row["start"].split(";")]
            if all(f.is_file() for f in files):
                tests.append({"id": row["id"], "mandatory": row["conformance"] == "mandatory",
                              "files": [str(f) for f in files]})
    return tests


# -- child runners: one peer, one round, JSON on stdout ------------------------------------------

def run_statekit(tests: list[dict[str, Any]]) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT / "src"))
    from importlib.metadata import version

    from statekit.scxml import ScxmlSystem

    def one(path: Path) -> str:
        system = ScxmlSystem(base_dir=path.parent)
        session = system.start(path.read_bytes(), base=str(path.parent))
        system.run_until_idle(session)
        if session.final == "pass":
            return "pass"
        return session.final or session.error or f"ended in {session.active_state_ids()}"

    results: dict[str, str] = {}
    cpu0, wall0 = time.process_time(), time.perf_counter()
    for test in tests:
        outcomes = [one(Path(f)) for f in test["files"]]
        results[test["id"]] = next((o for o in outcomes if o != "pass"), "pass")
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    return {"peer": "statekit", "version": version("statekit"), "cpuMs": cpu * 1000, "wallMs": wall * 1000,
            "results": results}


def run_python_statemachine(tests: list[dict[str, Any]], trusted: bool) -> dict[str, Any]:
    from importlib.metadata import version

    from statemachine.io import load

    def one(path: str) -> str:
        try:
            machine = load(path, trusted=trusted)()
            deadline = time.monotonic() + 5
            while not machine.is_terminated and time.monotonic() < deadline:
                time.sleep(0.02)
                machine._engine.processing_loop()  # events from its invoke and timer threads
            ids = {s.id for s in machine.configuration}
        except Exception as error:  # a document it refuses
            return f"{type(error).__name__}: {str(error).splitlines()[0][:120] if str(error) else ''}"
        if "pass" in ids:
            return "pass"
        return "fail" if "fail" in ids else "timeout" if not machine.is_terminated else f"ended in {sorted(ids)}"

    results: dict[str, str] = {}
    cpu0, wall0 = time.process_time(), time.perf_counter()
    for test in tests:
        outcomes = [one(f) for f in test["files"]]
        results[test["id"]] = next((o for o in outcomes if o != "pass"), "pass")
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    name = "python-statemachine" + (" trusted" if trusted else "")
    return {"peer": name, "version": version("python-statemachine"), "cpuMs": cpu * 1000,
            "wallMs": wall * 1000, "results": results}


def child(peer: str, tests_file: str) -> None:
    tests = json.loads(Path(tests_file).read_text())
    out = sys.stdout
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - peers print <log> output
    import logging

    logging.disable(logging.CRITICAL)
    if peer == "statekit":
        result = run_statekit(tests)
    else:
        result = run_python_statemachine(tests, trusted=peer == "psm-trusted")
    out.write(json.dumps(result) + "\n")


# -- the parent: rounds, subprocesses, the table -------------------------------------------------

def ensure_scion() -> None:
    """Install the pinned SCION with `npm ci` once (bench/scion/package-lock.json)."""
    if (SCION_DIR / "node_modules" / "@scion-scxml" / "scxml").is_dir():
        return
    if shutil.which("npm") is None or shutil.which("node") is None:
        raise SystemExit("SCION needs node and npm on PATH (or leave it out: --peers statekit,psm-trusted,psm)")
    print("installing the pinned SCION: npm ci in bench/scion", file=sys.stderr)
    completed = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=SCION_DIR, capture_output=True,
                               text=True, check=False)
    if completed.returncode != 0:
        raise SystemExit(f"npm ci in bench/scion failed: {completed.stderr.strip()[-300:]}")


def one_round(peer: str, tests_file: str) -> dict[str, Any]:
    if peer == "scion":
        command = ["node", str(SCION_DIR / "run.mjs"), tests_file]
    else:
        command = [sys.executable, str(Path(__file__).resolve()), "--child", peer, "--tests", tests_file]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    completed = subprocess.run(command, capture_output=True, text=True, timeout=1800, check=False,
                               cwd=SCION_DIR if peer == "scion" else ROOT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    lines = [line for line in completed.stdout.splitlines() if line.startswith("{")]
    if completed.returncode != 0 or not lines:
        raise SystemExit(f"{peer} failed (exit {completed.returncode}): {completed.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(lines[-1])
    result["processCpuMs"] = ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1000
    return result


def _figure(values: list[float]) -> str:
    return f"{min(values):8.0f} {statistics.median(values):8.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--peers", default=",".join(PEERS))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--optional", action="store_true", help="run the optional automatic tests too")
    parser.add_argument("--json", type=Path, help="write every round's results here")
    parser.add_argument("--child", choices=[p for p in PEERS if p != "scion"], help=argparse.SUPPRESS)
    parser.add_argument("--tests", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.tests)
        return
    tests = suite(args.corpus, args.optional)
    if not tests:
        raise SystemExit(f"no W3C SCXML tests under {args.corpus}")
    peers = [p.strip() for p in args.peers.split(",") if p.strip()]
    unknown = set(peers) - set(PEERS)
    if unknown:
        raise SystemExit(f"unknown peers {sorted(unknown)}; choose from {', '.join(PEERS)}")
    if "scion" in peers:
        ensure_scion()
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(tests, handle)
        tests_file = handle.name
    rounds: dict[str, list[dict[str, Any]]] = {}
    try:
        for _ in range(args.rounds):
            for peer in peers:  # peers alternate within a round, so load changes hit all alike
                rounds.setdefault(peer, []).append(one_round(peer, tests_file))
    finally:
        os.unlink(tests_file)
    mandatory = {t["id"] for t in tests if t["mandatory"]}
    load1, load5, _ = os.getloadavg()
    print(f"W3C SCXML IRP, {len(mandatory)} mandatory automatic tests"
          + (f" + {len(tests) - len(mandatory)} optional" if args.optional else "")
          + f"; {args.rounds} round(s); Python {platform.python_version()}, {platform.machine()}, "
          f"{os.cpu_count()} CPUs, load average {load1:.1f}/{load5:.1f} at the end")
    print(f"{'peer':50} {'version':>8} {'pass':>8}   {'CPU ms in run':>17}   {'process CPU ms':>17}   "
          f"{'wall ms':>17}")
    print(f"{'':50} {'':>8} {'':>8}   {'best   median':>17}   {'best   median':>17}   {'best   median':>17}")
    optional = {t["id"] for t in tests} - mandatory
    for peer, results in rounds.items():
        last = results[-1]["results"]
        passed = sum(1 for test, outcome in last.items() if test in mandatory and outcome == "pass")
        extra = sum(1 for test, outcome in last.items() if test in optional and outcome == "pass")
        print(f"{LABELS[peer]:50} {results[0]['version']:>8} {passed:>4}/{len(mandatory):<3}   "
              f"{_figure([r['cpuMs'] for r in results])}   {_figure([r['processCpuMs'] for r in results])}   "
              f"{_figure([r['wallMs'] for r in results])}"
              + (f"   optional {extra}/{len(optional)}" if optional else ""))
    for peer, results in rounds.items():
        failures = {test: outcome for test, outcome in results[-1]["results"].items() if outcome != "pass"}
        unstable = sorted({t for r in results for t, o in r["results"].items() if o != "pass"} ^ set(failures))
        print(f"\n{LABELS[peer]}: {len(failures)} not passed" + (f" (varied between rounds: {unstable})"
                                                                  if unstable else ""))
        for test, outcome in sorted(failures.items(), key=lambda item: int(item[0])):
            kind = "mandatory" if test in mandatory else "optional"
            print(f"  {test} ({kind}): {outcome}")
    if args.json:
        args.json.write_text(json.dumps(rounds, indent=1))


if __name__ == "__main__":
    main()
