"""Render cost of this checkout against an earlier commit's renderer, timed in the same run.

    python bench/render_before_after.py                    # against f2806a8, 10/100/500 states
    python bench/render_before_after.py --against f2806a8 --repeat 5 --sizes 100,500

Each measurement runs in a fresh subprocess (one with the earlier commit's `src/`, exported with
`git archive`; one with this checkout's), alternating old/new, so both sides see the same load.
Reported: CPU seconds (the process plus the engine processes it waited for) and wall seconds,
medians over `--repeat` runs, for the whole machine as one PNG and for one PNG per parent state
(what visualize_machine draws). Machines are bench/render.py's grouped machines. With a system
`dot` on PATH, a last column gives its CPU seconds drawing the earlier renderer's DOT text
(one layout run, labels where dot puts them).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from render import grouped_machine  # noqa: E402  (bench/render.py, next to this file)

#: System Graphviz drawing the very DOT text of the earlier renderer (its one layout run), with
#: the same PNG arguments; CPU of the dot processes only.
_DOT_WORKER = """
import json, resource, subprocess, sys
from statekit.model import parse_machine
from statekit.render import machine_dot, parent_node_ids, parent_view
from statekit.render.draw import PNG_DPI, PNG_MAX_INCHES
model = parse_machine(json.load(open(sys.argv[1])))
texts = [machine_dot(model)] if sys.argv[2] == "png" else [
    machine_dot(model, parent_view(model, parent)) for parent in parent_node_ids(model)]
for text in texts:
    subprocess.run([sys.argv[3], "-Tpng", f"-Gdpi={PNG_DPI}", f"-Gsize={PNG_MAX_INCHES},{PNG_MAX_INCHES}"],
                   input=text.encode(), capture_output=True, check=True)
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"cpu": kids.ru_utime + kids.ru_stime, "wall": 0.0}))
"""

_WORKER = """
import json, resource, sys, time
from statekit.model import parse_machine
from statekit.render import parent_node_ids, render_parent_pngs, render_png
model = parse_machine(json.load(open(sys.argv[1])))
def cpu():
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
started_cpu, started = cpu(), time.perf_counter()
if sys.argv[2] == "png":
    render_png(model)
else:
    render_parent_pngs(model, parent_node_ids(model))
print(json.dumps({"cpu": cpu() - started_cpu, "wall": time.perf_counter() - started}))
"""


def run(src: Path, config: Path, kind: str, dot: str | None = None) -> dict[str, float]:
    worker = [_WORKER, str(config), kind] if dot is None else [_DOT_WORKER, str(config), kind, dot]
    output = subprocess.run(
        [sys.executable, "-c", *worker], capture_output=True, text=True, check=True,
        env={**os.environ, "PYTHONPATH": str(src)},
    ).stdout
    result: dict[str, float] = json.loads(output)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--against", default="f2806a8")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", default="10,100,500")
    args = parser.parse_args()
    dot = shutil.which("dot")
    with tempfile.TemporaryDirectory() as folder:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.against, "src"], capture_output=True,
                                 check=True).stdout
        subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
        sides = {"before": Path(folder) / "src", "after": ROOT / "src"}
        print(f"load average at start: {os.getloadavg()[0]:.2f}\n")
        print("| states | drawing | CPU s before | CPU s after | CPU after/before | wall s before | wall s after "
              "| CPU s dot (before's DOT) |")
        print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        for size in (int(part) for part in args.sizes.split(",")):
            config = Path(folder) / f"m{size}.json"
            config.write_text(json.dumps(grouped_machine(size)), encoding="utf-8")
            for kind, label in (("png", "whole PNG"), ("parents", "PNG per parent")):
                runs: dict[str, list[dict[str, float]]] = {"before": [], "after": [], "dot": []}
                for _ in range(args.repeat):
                    for side in ("before", "after"):
                        runs[side].append(run(sides[side], config, kind))
                    if dot is not None:
                        runs["dot"].append(run(sides["before"], config, kind, dot))
                cpu = {side: statistics.median(r["cpu"] for r in runs[side]) for side in runs if runs[side]}
                wall = {side: statistics.median(r["wall"] for r in runs[side]) for side in runs if runs[side]}
                dot_cell = f"{cpu['dot']:.2f}" if "dot" in cpu else "n/a"
                print(f"| {size} | {label} | {cpu['before']:.2f} | {cpu['after']:.2f} | "
                      f"{cpu['after'] / cpu['before']:.2f} | {wall['before']:.2f} | {wall['after']:.2f} | {dot_cell} |")
        print(f"\nload average at end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
