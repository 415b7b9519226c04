"""Render cost of this checkout against an earlier commit's renderer, timed in the same run.

    python bench/render_before_after.py                    # against f2806a8, 10/100/500 states
    python bench/render_before_after.py --against f2806a8 --repeat 5 --sizes 100,500

Each measurement runs in a fresh subprocess (one with the earlier commit's `src/`, exported with
`git archive`; one with this checkout's), alternating old/new, so both sides see the same load.
Reported: CPU seconds (the process plus the engine processes it waited for) and wall seconds,
medians over `--repeat` runs, for the whole machine as one PNG and for one PNG per parent state
(what visualize_machine draws). Machines are bench/render.py's grouped machines.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from render import grouped_machine  # noqa: E402  (bench/render.py, next to this file)

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


def run(src: Path, config: Path, kind: str) -> dict[str, float]:
    output = subprocess.run(
        [sys.executable, "-c", _WORKER, str(config), kind], capture_output=True, text=True, check=True,
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
    with tempfile.TemporaryDirectory() as folder:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.against, "src"], capture_output=True,
                                 check=True).stdout
        subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
        sides = {"before": Path(folder) / "src", "after": ROOT / "src"}
        print(f"load average at start: {os.getloadavg()[0]:.2f}\n")
        print("| states | drawing | CPU s before | CPU s after | CPU after/before | wall s before | wall s after |")
        print("| ---: | --- | ---: | ---: | ---: | ---: | ---: |")
        for size in (int(part) for part in args.sizes.split(",")):
            config = Path(folder) / f"m{size}.json"
            config.write_text(json.dumps(grouped_machine(size)), encoding="utf-8")
            for kind, label in (("png", "whole PNG"), ("parents", "PNG per parent")):
                runs: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
                for _ in range(args.repeat):
                    for side in ("before", "after"):
                        runs[side].append(run(sides[side], config, kind))
                cpu = {side: statistics.median(r["cpu"] for r in runs[side]) for side in runs}
                wall = {side: statistics.median(r["wall"] for r in runs[side]) for side in runs}
                print(f"| {size} | {label} | {cpu['before']:.2f} | {cpu['after']:.2f} | "
                      f"{cpu['after'] / cpu['before']:.2f} | {wall['before']:.2f} | {wall['after']:.2f} |")
        print(f"\nload average at end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
