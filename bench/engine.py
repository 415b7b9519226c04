"""Engine throughput: statekit against its peers, side by side in one run.

    python bench/engine.py                  # everything: five machines, about 5-7 minutes on 2 cores
    python bench/engine.py --peers statekit-actor,xstate-actor --machines flat

Every (peer, machine) pair runs in its own subprocess, one after another, so no peer warms
or pollutes another's interpreter; ``--rounds`` passes over all peers interleave them, so a
burst of load from elsewhere does not land on one peer only. Each worker
(bench/peers/harness.py, bench/node/peer.mjs) checks the peer against the machine's expected
trace, warms up, sizes a repeat to about ``--seconds``, times ``--repeats`` repeats and checks
the final state after each; the best repeat over all rounds is reported. The Markdown report goes to stdout, progress to stderr. The exit status is 1 if any peer
failed its checks or could not run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
MACHINES = ("flat", "player", "workflow", "wide", "timers")
#: Machines whose spec a script builds (the others are bench/machines/NAME.json).
GENERATED = {"wide": BENCH / "machines" / "wide.py"}
WORKER_TIMEOUT_SECONDS = 300


@dataclass(frozen=True)
class PeerSpec:
    """One contender: how to start its worker."""

    key: str
    runtime: str  # "python" or "node"
    argv: tuple[str, ...]


PEERS = (
    PeerSpec("statekit-actor", "python", ("peers/peer_statekit.py", "--api", "actor")),
    PeerSpec("statekit-transition", "python", ("peers/peer_statekit.py", "--api", "transition")),
    PeerSpec(
        "statekit-js-guards",
        "python",
        ("peers/peer_statekit.py", "--api", "transition", "--guards", "js"),
    ),
    PeerSpec("xstate-actor", "node", ("node/peer.mjs", "--peer", "actor")),
    PeerSpec("xstate-transition", "node", ("node/peer.mjs", "--peer", "transition")),
    PeerSpec("xstate-statemachine", "python", ("peers/peer_xstate_statemachine.py",)),
    PeerSpec("transitions", "python", ("peers/peer_transitions.py",)),
    PeerSpec("python-statemachine", "python", ("peers/peer_python_statemachine.py",)),
    PeerSpec("sismic", "python", ("peers/peer_sismic.py",)),
)
STATEKIT_KEYS = ("statekit-actor", "statekit-transition")
PYTHON_PEER_KEYS = ("xstate-statemachine", "transitions", "python-statemachine", "sismic")


def ensure_node_modules() -> str | None:
    """Install the pinned XState with ``npm ci`` if needed; return why node cannot run."""
    if shutil.which("node") is None:
        return "node is not on PATH"
    if (BENCH / "node" / "node_modules" / "xstate").is_dir():
        return None
    if shutil.which("npm") is None:
        return "npm is not on PATH (needed once: npm ci in bench/node)"
    print("installing the pinned xstate: npm ci in bench/node", file=sys.stderr)
    completed = subprocess.run(
        ["npm", "ci", "--no-audit", "--no-fund"],
        cwd=BENCH / "node",
        capture_output=True,
        text=True,
    )
    if completed.returncode != 0:
        return f"npm ci failed: {completed.stderr.strip()[-300:]}"
    return None


def load_spec(machine: str) -> dict[str, Any]:
    """A machine's spec as committed, or as its generator script builds it."""
    script = GENERATED.get(machine)
    if script is None:
        spec: dict[str, Any] = json.loads((BENCH / "machines" / f"{machine}.json").read_text())
        return spec
    completed = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, check=True
    )
    generated: dict[str, Any] = json.loads(completed.stdout)
    return generated


def prepare_spec(machine: str, directory: Path) -> tuple[Path, dict[str, Any]]:
    """Write the spec with XState's own trace of its events (and its contexts, if any).

    Every worker, XState's included, checks its peer against this trace step by step; a
    trace the spec itself records (flat, player) must agree with XState's first.
    """
    spec = load_spec(machine)
    path = directory / f"{machine}.json"
    path.write_text(json.dumps(spec))
    completed = subprocess.run(
        ["node", str(BENCH / "node" / "peer.mjs"), "--trace", "--machine", str(path)],
        capture_output=True,
        text=True,
        timeout=WORKER_TIMEOUT_SECONDS,
    )
    reference: dict[str, Any] = json.loads(completed.stdout.strip().splitlines()[-1])
    if "error" in reference:
        raise RuntimeError(f"{machine}: XState could not run the machine: {reference['error']}")
    if sorted(reference["initial"]) != sorted(spec["initial"]):
        raise RuntimeError(f"{machine}: XState starts in {reference['initial']}")
    recorded = spec.get("trace")
    if recorded is not None and [sorted(c) for c in recorded] != reference["trace"]:
        raise RuntimeError(f"{machine}: the recorded trace differs from XState's")
    spec["trace"] = reference["trace"]
    if any(context for context in reference["contexts"]):
        spec["contexts"] = reference["contexts"]
    path.write_text(json.dumps(spec))
    return path, spec


def run_worker(peer: PeerSpec, spec_path: Path, args: argparse.Namespace) -> dict[str, Any]:
    """Run one worker subprocess and parse its JSON line."""
    runtime = [sys.executable] if peer.runtime == "python" else ["node", "--expose-gc"]
    command = [
        *runtime,
        str(BENCH / peer.argv[0]),
        *peer.argv[1:],
        "--machine",
        str(spec_path),
        "--events",
        str(args.events),
        "--seconds",
        str(args.seconds),
        "--repeats",
        str(args.repeats),
    ]
    try:
        completed = subprocess.run(
            command, capture_output=True, text=True, timeout=WORKER_TIMEOUT_SECONDS
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {WORKER_TIMEOUT_SECONDS} s"}
    lines = completed.stdout.strip().splitlines()
    if completed.returncode != 0 or not lines:
        tail = completed.stderr.strip().splitlines()[-1:] or ["no output"]
        return {"error": f"worker exited {completed.returncode}: {tail[0]}"}
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def merge_rounds(previous: dict[str, Any] | None, new: dict[str, Any]) -> dict[str, Any]:
    """Keep the best round of a peer, per clock; any failed round fails the peer."""
    if previous is None:
        return new
    if "skipped" in previous or "skipped" in new:
        return previous if "skipped" in previous else new
    if "error" in previous:
        return previous
    if "error" in new:
        return new
    best = previous if previous["events_per_second"] >= new["events_per_second"] else new
    return {
        **best,
        "repeats": previous["repeats"] + new["repeats"],
        "events_per_cpu_second": max(
            previous["events_per_cpu_second"], new["events_per_cpu_second"]
        ),
    }


CLOCKS = {"wall": "events_per_second", "CPU": "events_per_cpu_second"}


def _rate(results: dict[str, dict[str, Any]], key: str, clock: str = "wall") -> float | None:
    value = results.get(key, {}).get(CLOCKS[clock])
    return float(value) if value is not None else None


def _ratios(results: dict[str, dict[str, Any]], mine: str, theirs: str) -> str:
    """statekit's rate over a peer's, by wall clock and by CPU time."""
    parts = []
    for clock in CLOCKS:
        numerator, denominator = _rate(results, mine, clock), _rate(results, theirs, clock)
        if numerator is None or denominator is None:
            return "—"
        parts.append(f"{numerator / denominator:.2f}x")
    return " / ".join(parts)


def _label(key: str, result: dict[str, Any]) -> str:
    label = result.get("label", key)
    version = result.get("version")
    return f"{label} {version}" if version else label


def machine_table(title: str, results: dict[str, dict[str, Any]], keys: list[str]) -> list[str]:
    """A Markdown table for one machine: rates per peer and statekit's ratios to them."""
    lines = [
        f"#### {title}",
        "",
        "| peer | events/s | events per CPU-second | events x repeats "
        "| statekit Actor ÷ peer (wall / CPU) | statekit transition() ÷ peer (wall / CPU) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    ordered = sorted(keys, key=lambda k: -(_rate(results, k) or -1.0))
    for key in ordered:
        result = results[key]
        rate, cpu_rate = _rate(results, key), _rate(results, key, "CPU")
        if "skipped" in result:
            lines.append(f"| {_label(key, result)} | not run: {result['skipped']} | | | | |")
            continue
        if rate is None or cpu_rate is None:
            error = result.get("error", "no result")
            lines.append(f"| {_label(key, result)} | FAILED: {error} | | | | |")
            continue
        lines.append(
            f"| {_label(key, result)} | {rate:,.0f} | {cpu_rate:,.0f} "
            f"| {result['events']:,} x {result['repeats']} "
            f"| {_ratios(results, 'statekit-actor', key)} "
            f"| {_ratios(results, 'statekit-transition', key)} |"
        )
    return [*lines, ""]


def _goal(ratios: dict[str, float], at_least: float) -> str:
    measured = ", ".join(f"{ratio:.2f}x {clock}" for clock, ratio in ratios.items())
    verdicts = "/".join("met" if ratio >= at_least else "NOT met" for ratio in ratios.values())
    return f"{measured} (goal ≥ {at_least:g}x: {verdicts})"


def goal_lines(all_results: dict[str, dict[str, dict[str, Any]]]) -> list[str]:
    """Check the issue's goals: >= XState's actor in node, >= 2x the fastest Python peer."""
    lines = ["#### Goals", ""]
    for machine, results in all_results.items():
        for statekit_key in STATEKIT_KEYS:
            if _rate(results, statekit_key) is None:
                continue
            versus_xstate: dict[str, float] = {}
            versus_python: dict[str, float] = {}
            fastest_python: dict[str, str] = {}
            for clock in CLOCKS:
                mine = _rate(results, statekit_key, clock) or 0.0
                xstate_actor = _rate(results, "xstate-actor", clock)
                if xstate_actor:
                    versus_xstate[clock] = mine / xstate_actor
                python_rates = {
                    k: r for k in PYTHON_PEER_KEYS if (r := _rate(results, k, clock)) is not None
                }
                if python_rates:
                    fastest_python[clock] = max(python_rates, key=python_rates.__getitem__)
                    versus_python[clock] = mine / python_rates[fastest_python[clock]]
            if versus_xstate:
                lines.append(
                    f"- {machine}: {statekit_key} ÷ XState createActor = {_goal(versus_xstate, 1)}"
                )
            if versus_python:
                names = ", ".join(sorted(set(fastest_python.values())))
                lines.append(
                    f"- {machine}: {statekit_key} ÷ fastest Python peer ({names}) = "
                    f"{_goal(versus_python, 2)}"
                )
        js, python = _rate(results, "statekit-js-guards"), _rate(results, "statekit-transition")
        if js and python:
            slowdowns = {
                clock: (_rate(results, "statekit-transition", clock) or 0.0)
                / (_rate(results, "statekit-js-guards", clock) or 1.0)
                for clock in CLOCKS
            }
            measured = ", ".join(f"{ratio:.2f}x {clock}" for clock, ratio in slowdowns.items())
            verdicts = "/".join("met" if r <= 2 else "NOT met" for r in slowdowns.values())
            lines.append(
                f"- {machine}: inline-JS guards cost (statekit transition() with Python guards ÷ "
                f"with JS guards) = {measured} (goal ≤ 2x: {verdicts})"
            )
    return [*lines, ""] if len(lines) > 2 else []


def statekit_revision() -> str:
    """The commit the statekit figures belong to, flagged when the engine has local edits."""

    def git(*arguments: str) -> str:
        completed = subprocess.run(
            ["git", *arguments], cwd=BENCH.parent, capture_output=True, text=True
        )
        return completed.stdout.strip() if completed.returncode == 0 else ""

    commit = git("rev-parse", "--short", "HEAD")
    if not commit:
        return "not a git checkout"
    dirty = git("status", "--porcelain", "--", "src/statekit/engine", "src/statekit/model")
    return f"commit {commit}" + (" + uncommitted engine changes" if dirty else "")


def environment_lines(command: str, elapsed: float, load_before: float) -> list[str]:
    """Where and how the figures were measured."""
    load_after = os.getloadavg()[0]
    cores = os.cpu_count() or 1
    busy = (
        [f"- warning: other work ran on the machine (load above {cores} cores): noisy figures"]
        if max(load_before, load_after) > cores
        else []
    )
    node_version = "absent"
    if shutil.which("node"):
        node_version = subprocess.run(
            ["node", "--version"], capture_output=True, text=True
        ).stdout.strip()
    return [
        f"- command: `{command}`",
        f"- statekit: {statekit_revision()}",
        f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
        f"- machine: {os.cpu_count()} cores, {platform.machine()}, {platform.system()}; "
        f"CPython {platform.python_version()}, node {node_version}",
        f"- total run time: {elapsed:.0f} s; 1-minute load average {load_before:.2f} before, "
        f"{load_after:.2f} after",
        *busy,
        "",
    ]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--events", type=int, default=1_000_000, help="cap on events per repeat (default 1e6)"
    )
    parser.add_argument(
        "--seconds", type=float, default=0.5, help="target duration of one repeat (default 0.5)"
    )
    parser.add_argument(
        "--repeats", type=int, default=2, help="timed repeats per round (default 2)"
    )
    parser.add_argument(
        "--rounds", type=int, default=3, help="rounds over all peers, best kept (default 3)"
    )
    parser.add_argument(
        "--peers", default=",".join(p.key for p in PEERS), help="comma-separated peer keys"
    )
    parser.add_argument("--machines", default=",".join(MACHINES), help="flat,player")
    parser.add_argument("--json", type=Path, help="also write the raw results here")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.perf_counter()
    wanted = args.peers.split(",")
    unknown = set(wanted) - {p.key for p in PEERS}
    if unknown:
        sys.exit(f"unknown peers: {', '.join(sorted(unknown))}")
    peers = [p for p in PEERS if p.key in wanted]
    machines = args.machines.split(",")
    node_problem = ensure_node_modules()

    load_before = os.getloadavg()[0]
    if node_problem:
        sys.exit(f"XState's trace is the reference and node cannot run: {node_problem}")
    workdir = Path(tempfile.mkdtemp(prefix="statekit-bench-"))
    specs = {machine: prepare_spec(machine, workdir) for machine in machines}
    all_results: dict[str, dict[str, dict[str, Any]]] = {m: {} for m in machines}
    # Rounds interleave the peers, so that a burst of load from elsewhere on the machine
    # hits every peer alike instead of one peer's whole measurement.
    for round_number in range(1, args.rounds + 1):
        for machine in machines:
            for peer in peers:
                print(
                    f"round {round_number}/{args.rounds} {machine:7} {peer.key:22}",
                    end=" ",
                    file=sys.stderr,
                    flush=True,
                )
                if peer.runtime == "node" and node_problem:
                    result: dict[str, Any] = {"error": node_problem}
                else:
                    result = run_worker(peer, specs[machine][0], args)
                previous = all_results[machine].get(peer.key)
                all_results[machine][peer.key] = merge_rounds(previous, result)
                rate = result.get("events_per_second")
                outcome = result.get("error") or f"not run: {result.get('skipped')}"
                print(f"{rate:>14,.0f} ev/s" if rate else outcome, file=sys.stderr)

    elapsed = time.perf_counter() - started
    command = " ".join(["python", "bench/engine.py", *(argv if argv is not None else sys.argv[1:])])
    titles = {name: specs[name][1]["title"] for name in machines}
    report = environment_lines(command, elapsed, load_before)
    for machine in machines:
        report += machine_table(titles[machine], all_results[machine], [p.key for p in peers])
    report += goal_lines(all_results)
    print("\n".join(report))
    if args.json:
        args.json.write_text(json.dumps(all_results, indent=2) + "\n")
    failed = any("error" in r for results in all_results.values() for r in results.values())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
