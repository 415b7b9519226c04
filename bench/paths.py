"""Graph paths: statekit's `generate_graph_paths` against `@xstate/graph` 3.0.4, side by side.

    python bench/paths.py                       # every machine, 3 rounds (a few minutes on 2 cores)
    python bench/paths.py --rounds 1 --machines chain-1000
    python bench/paths.py --scaling --rounds 2 --repeats 1   # growth at 1k-20k states, exponents fitted

For each (machine, algorithm) the two contenders alternate within each round, so load from
elsewhere does not land on one side only:

- statekit: `statekit.tools.call("generate_graph_paths", ...)` in this process: parsing the
  config, building the machine, the traversal, the paths, the coverage and the JSON result.
- XState: `getShortestPaths` / `getSimplePaths` of @xstate/graph 3.0.4 in node
  (tests/oracle/graph/paths.mjs --bench), creating the machine each run too; XState's
  production build (node's default conditions), its fastest.

Each run of either side gets a fresh copy of the config, made before its clock starts, so no
machine, node or cache built by one run serves the next. Each side runs `--repeats` times per
round in one process (node warms its JIT on the first runs). Both clocks are read per run:
CPU time (the process's user + system time: Python's `time.process_time()`, node's
`process.cpuUsage()`, which also counts V8's collector and compiler threads) and wall time.
The best run over all rounds is reported for each, and the ratios statekit / XState of the
best times (below 1: statekit is faster); the CPU ratio is the figure to read on a shared
machine, as time spent waiting for a core counts in neither. Both sides must find the same
number of states and paths, or the row is marked as a failure and the exit status is 1.
Markdown goes to stdout; the load average is sampled at every round.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ORACLE = ROOT / "tests" / "oracle"
DRIVER = ORACLE / "graph" / "paths.mjs"
NODE_TIMEOUT_SECONDS = 600

Config = dict[str, Any]


def chain(count: int) -> Config:
    """s0 -> ... -> s{count-1} on NEXT, back on PREV."""
    states: dict[str, Any] = {}
    for index in range(count):
        on: dict[str, str] = {}
        if index < count - 1:
            on["NEXT"] = f"s{index + 1}"
        if index > 0:
            on["PREV"] = f"s{index - 1}"
        states[f"s{index}"] = {"on": on}
    return {"id": "chain", "initial": "s0", "states": states}


def forward_chain(count: int) -> Config:
    """s0 -> ... -> s{count-1} on NEXT only (one simple path per state)."""
    states = {f"s{i}": {"on": {"NEXT": f"s{i + 1}"}} if i < count - 1 else {} for i in range(count)}
    return {"id": "chain", "initial": "s0", "states": states}


def grid(width: int, height: int) -> Config:
    """A grid of flat states moved through with UP / DOWN / LEFT / RIGHT."""
    states: dict[str, Any] = {}
    for row in range(height):
        for column in range(width):
            on: dict[str, str] = {}
            if row > 0:
                on["UP"] = f"r{row - 1}c{column}"
            if row < height - 1:
                on["DOWN"] = f"r{row + 1}c{column}"
            if column > 0:
                on["LEFT"] = f"r{row}c{column - 1}"
            if column < width - 1:
                on["RIGHT"] = f"r{row}c{column + 1}"
            states[f"r{row}c{column}"] = {"on": on}
    return {"id": "grid", "initial": "r0c0", "states": states}


def binary_tree(depth: int) -> Config:
    """A flat machine shaped as a binary tree (L / R to the children, ROOT back to the top)."""
    states: dict[str, Any] = {}

    def add(name: str, level: int) -> None:
        on: dict[str, str] = {"ROOT": "t"}
        if level < depth:
            for event, branch in (("L", "0"), ("R", "1")):
                on[event] = f"{name}{branch}"
                add(f"{name}{branch}", level + 1)
        states[name] = {"on": on}

    add("t", 0)
    return {"id": "tree", "initial": "t", "states": states}


def parallel_toggles(regions: int) -> Config:
    """`regions` parallel on/off toggles: 2**regions states, one event per region."""
    return {"id": "toggles", "type": "parallel", "states": {
        f"r{index}": {"initial": "off", "states": {"off": {"on": {f"T{index}": "on"}}, "on": {"on": {f"T{index}": "off"}}}}
        for index in range(regions)
    }}


def ladder(rungs: int) -> Config:
    """Two rails of `rungs` states (NEXT / PREV along a rail, SWITCH across): 2 x rungs states."""
    states: dict[str, Any] = {}
    for rail, other in (("a", "b"), ("b", "a")):
        for index in range(rungs):
            on: dict[str, str] = {"SWITCH": f"{other}{index}"}
            if index < rungs - 1:
                on["NEXT"] = f"{rail}{index + 1}"
            if index > 0:
                on["PREV"] = f"{rail}{index - 1}"
            states[f"{rail}{index}"] = {"on": on}
    return {"id": "ladder", "initial": "a0", "states": states}


def parallel_grids(regions: int, side: int) -> Config:
    """`regions` parallel side x side grids, each moved with its own UP / DOWN / LEFT / RIGHT:
    side ** (2 * regions) states."""
    def region(number: int) -> Config:
        inner = grid(side, side)
        for state in inner["states"].values():
            state["on"] = {f"{event}{number}": target for event, target in state["on"].items()}
        return {"initial": inner["initial"], "states": inner["states"]}

    return {"id": "grids", "type": "parallel", "states": {f"g{number}": region(number) for number in range(regions)}}


#: Families measured at growing sizes (`--scaling`): name -> [(states, config)], shortest paths.
SCALING: dict[str, list[tuple[int, Config]]] = {
    "ladder": [(2 * rungs, ladder(rungs)) for rungs in (1024, 2048, 4096, 8192)],
    "parallel-grids": [(side ** 4, parallel_grids(2, side)) for side in (6, 8, 10, 12)],
    "toggles": [(2 ** regions, parallel_toggles(regions)) for regions in (11, 12, 13, 14)],
}


#: name -> (config, algorithm, description)
MACHINES: dict[str, tuple[Config, str, str]] = {
    "chain-1000": (chain(1000), "shortest", "1,000 flat states, NEXT / PREV"),
    "grid-32x32": (grid(32, 32), "shortest", "1,024 flat states, 4 events each"),
    "tree-1023": (binary_tree(9), "shortest", "1,023 flat states, L / R / ROOT"),
    "toggles-10": (parallel_toggles(10), "shortest", "10 parallel regions: 1,024 states, 10 events each"),
    "chain-1000-simple": (forward_chain(1000), "simple", "1,000 flat states, NEXT only"),
    "tree-1023-simple": (binary_tree(9), "simple", "1,023 flat states, L / R / ROOT"),
}


def ensure_oracle() -> str | None:
    """Install the pinned @xstate/graph with `npm ci` if needed; return why node cannot run."""
    if shutil.which("node") is None:
        return "node is not on PATH"
    if (ORACLE / "node_modules" / "@xstate" / "graph").is_dir():
        return None
    if shutil.which("npm") is None:
        return "npm is not on PATH (needed once: npm ci in tests/oracle)"
    print("installing the pinned xstate and @xstate/graph: npm ci in tests/oracle", file=sys.stderr)
    completed = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=ORACLE, capture_output=True, text=True)
    return None if completed.returncode == 0 else f"npm ci failed: {completed.stderr.strip()[-300:]}"


Timings = dict[str, list[float]]  # "cpu" and "wall": seconds per run
#: The graphBytes of statekit's last run (what its explored graph kept).
LAST_GRAPH_BYTES = [0]


def run_statekit(config: Config, algorithm: str, repeats: int) -> tuple[Timings, int, int]:
    """Seconds per run (CPU and wall), states explored, paths found."""
    from statekit.tools import call

    timings: Timings = {"cpu": [], "wall": []}
    result: dict[str, Any] = {}
    for _ in range(repeats):
        fresh = copy.deepcopy(config)  # a new config object: nothing of the last run is reused
        cpu_started = time.process_time()
        started = time.perf_counter()
        result = call("generate_graph_paths", {"machine": fresh, "algorithm": algorithm, "limit": 1_000_000},
                      max_source_bytes=64 * 1024 * 1024)  # the largest configs pass the server's 1 MiB
        timings["wall"].append(time.perf_counter() - started)
        timings["cpu"].append(time.process_time() - cpu_started)
        LAST_GRAPH_BYTES[0] = result["execution"].get("graphBytes", 0)
    return timings, result["execution"]["statesExplored"], result["totalCount"]


def run_xstate(config: Config, algorithm: str, repeats: int) -> tuple[Timings, int, int]:
    """Seconds per run (CPU and wall), distinct end states, paths found, from @xstate/graph in node."""
    case = {"name": "bench", "config": config, "algorithm": algorithm, "repeat": repeats}
    completed = subprocess.run(
        ["node", str(DRIVER), "--bench"], input=json.dumps(case), capture_output=True, text=True,
        cwd=ORACLE, timeout=NODE_TIMEOUT_SECONDS, check=True,
    )
    report = json.loads(completed.stdout)
    return {"cpu": report["cpuSeconds"], "wall": report["seconds"]}, report["states"], report["totalCount"]


def exponent(points: list[tuple[int, float]]) -> float:
    """The least-squares slope of log(seconds) over log(states): cost grows as states ** slope."""
    xs = [math.log(states) for states, _seconds in points]
    ys = [math.log(seconds) for _states, seconds in points]
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    return (sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True))
            / sum((x - mean_x) ** 2 for x in xs))


def scaling(families: list[str], rounds: int, repeats: int) -> int:
    """Both sides on each family at growing sizes (CPU, best of rounds x repeats), and the growth
    exponents fitted to them."""
    failed = False
    run_statekit(chain(10), "shortest", 1)  # imports and first-call set-up, not a figure
    loads = [os.getloadavg()[0]]
    print("| family | states | statekit CPU (s) | XState CPU (s) | CPU ratio | statekit graphBytes/state |")
    print("|---|---|---|---|---|---|")
    fits: dict[str, dict[str, list[tuple[int, float]]]] = {}
    for family in families:
        fits[family] = {"statekit": [], "xstate": []}
        for size, config in SCALING[family]:
            best = {"statekit": float("inf"), "xstate": float("inf")}
            found: dict[str, tuple[int, int]] = {}
            for round_index in range(rounds):
                print(f"{family} {size} round {round_index + 1}/{rounds}", file=sys.stderr)
                for side, runner in (("statekit", run_statekit), ("xstate", run_xstate)):
                    try:
                        timings, states, paths = runner(config, "shortest", repeats)
                    except subprocess.CalledProcessError as error:  # node ran out of heap: XState keeps every path
                        found[side] = (-1, error.returncode)
                        continue
                    best[side] = min(best[side], *timings["cpu"])
                    found[side] = (states, paths)
                loads.append(os.getloadavg()[0])
            agree = found["statekit"] == found["xstate"] == (size, size)
            node_failed = found["xstate"][0] == -1
            failed = failed or not (agree or node_failed)
            for side in best:
                if best[side] != float("inf"):
                    fits[family][side].append((size, best[side]))
            mark = "" if agree else " (node failed: out of heap, no XState figure)" if node_failed else f" **disagree: {found}**"
            theirs, ratio = ("-", "-") if node_failed else (f"{best['xstate']:.3f}", f"{best['statekit'] / best['xstate']:.2f}")
            print(f"| {family} | {size} | {best['statekit']:.3f} | {theirs} | **{ratio}** | "
                  f"{LAST_GRAPH_BYTES[0] / size:.0f}{mark} |")
    print(f"\nLoad average (1 min) {min(loads):.1f} to {max(loads):.1f}; best of {rounds} rounds x {repeats} runs.\n")
    print("| family | statekit exponent | XState exponent |")
    print("|---|---|---|")
    for family, sides in fits.items():
        theirs = f"{exponent(sides['xstate']):.2f}" if len(sides["xstate"]) > 1 else "-"
        print(f"| {family} | {exponent(sides['statekit']):.2f} | {theirs} |")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--machines", default=",".join(MACHINES), help="comma-separated names")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3, help="runs per side per round")
    parser.add_argument("--json", type=Path, help="also write the raw figures here")
    parser.add_argument("--scaling", metavar="FAMILIES", nargs="?", const=",".join(SCALING),
                        help=f"measure growth instead: comma-separated families of {', '.join(SCALING)} (default all)")
    args = parser.parse_args(argv)
    problem = ensure_oracle()
    if problem:
        print(f"cannot run @xstate/graph: {problem}", file=sys.stderr)
        return 1
    if args.scaling:
        families = [name.strip() for name in args.scaling.split(",") if name.strip()]
        unknown = [name for name in families if name not in SCALING]
        if unknown:
            parser.error(f"unknown families: {', '.join(unknown)}; known: {', '.join(SCALING)}")
        return scaling(families, args.rounds, args.repeats)
    names = [name.strip() for name in args.machines.split(",") if name.strip()]
    unknown = [name for name in names if name not in MACHINES]
    if unknown:
        parser.error(f"unknown machines: {', '.join(unknown)}; known: {', '.join(MACHINES)}")
    rows: list[dict[str, Any]] = []
    failed = False
    loads = [os.getloadavg()[0]]
    for name in names:
        config, algorithm, description = MACHINES[name]
        best = {(side, clock): float("inf") for side in ("statekit", "xstate") for clock in ("cpu", "wall")}
        found: dict[str, tuple[int, int]] = {}
        for round_index in range(args.rounds):
            print(f"{name} round {round_index + 1}/{args.rounds}", file=sys.stderr)
            for side, runner in (("statekit", run_statekit), ("xstate", run_xstate)):
                timings, states, paths = runner(config, algorithm, args.repeats)
                for clock in ("cpu", "wall"):
                    best[side, clock] = min(best[side, clock], *timings[clock])
                found[side] = (states, paths)
            loads.append(os.getloadavg()[0])
        agree = found["statekit"] == found["xstate"]
        failed = failed or not agree
        rows.append({"machine": name, "description": description, "algorithm": algorithm,
                     "states": found["statekit"][0], "paths": found["statekit"][1],
                     "statekit_cpu_s": best["statekit", "cpu"], "xstate_cpu_s": best["xstate", "cpu"],
                     "statekit_wall_s": best["statekit", "wall"], "xstate_wall_s": best["xstate", "wall"],
                     "cpu_ratio": best["statekit", "cpu"] / best["xstate", "cpu"],
                     "wall_ratio": best["statekit", "wall"] / best["xstate", "wall"],
                     "agree": agree, "xstate_found": found["xstate"]})
    node_version = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    print(f"Python {platform.python_version()}, node {node_version}, {os.cpu_count()} cores, "
          f"load average (1 min) {min(loads):.1f} to {max(loads):.1f} over the run; "
          f"best of {args.rounds} rounds x {args.repeats} runs per side\n")
    print("| machine | algorithm | states | paths | statekit CPU (s) | XState CPU (s) | CPU ratio | "
          "statekit wall (s) | XState wall (s) | wall ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        mark = "" if row["agree"] else f" **disagree: XState found {row['xstate_found']}**"
        print(f"| {row['machine']} ({row['description']}) | {row['algorithm']} | {row['states']} | {row['paths']} | "
              f"{row['statekit_cpu_s']:.3f} | {row['xstate_cpu_s']:.3f} | **{row['cpu_ratio']:.2f}** | "
              f"{row['statekit_wall_s']:.3f} | {row['xstate_wall_s']:.3f} | {row['wall_ratio']:.2f}{mark} |")
    if max(loads) > (os.cpu_count() or 1):
        print("\nThe machine was busy (load average above its core count): wall times are inflated; "
              "the sides alternate, and the CPU ratios are the figures to read.")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
