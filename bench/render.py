"""Render time: statekit's drawing (DOT generation + graphviz-pure) against Graphviz `dot`.

    python bench/render.py                # 10, 100 and 500 states, median of 3 runs each
    python bench/render.py --repeat 1     # quicker
    python bench/render.py --json out.json

Machines: `size` states in compound groups of 10 (a chain with a way back in each group, every
tenth group parallel with two regions, groups linked in a ring), so every drawing has clusters,
regions, initial markers and labelled edges. For each size:

- whole machine as SVG and as PNG (what `statekit render` does);
- one PNG per parent state (what `visualize_machine` returns), run on 2 worker threads as the
  tool does, and the same DOT texts drawn by `dot` one after another.

statekit's time includes generating the DOT text in Python; `dot` gets that same text ready-made,
so the comparison favours `dot`. Timings are wall-clock medians on this machine (2 cores).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from statekit.model import parse_machine
from statekit.model.core import MachineModel
from statekit.render import (
    find_engine,
    machine_dot,
    parent_node_ids,
    parent_view,
    render_parent_pngs,
    render_png,
    render_svg,
)
from statekit.render.draw import PNG_DPI, PNG_MAX_INCHES

SIZES = (10, 100, 500)
PNG_ARGS = (f"-Gdpi={PNG_DPI}", f"-Gsize={PNG_MAX_INCHES},{PNG_MAX_INCHES}")


def grouped_machine(states: int, group: int = 10) -> dict[str, Any]:
    groups: dict[str, Any] = {}
    made = index = 0
    while made < states:
        size = min(group, states - made)
        names = [f"s{made + offset}" for offset in range(size)]
        children = {
            name: {"on": {f"NEXT{pos}": names[(pos + 1) % size], "BACK": names[0]}}
            for pos, name in enumerate(names)
        }
        following = f"g{index + 1}"
        if index % 10 == 9 and size >= 4:
            half = size // 2
            regions = {}
            for label, part in (("left", names[:half]), ("right", names[half:])):
                regions[label] = {
                    "initial": part[0],
                    "states": {
                        n: {"on": {"STEP": part[(i + 1) % len(part)]}} for i, n in enumerate(part)
                    },
                }
            groups[f"g{index}"] = {"type": "parallel", "states": regions, "on": {"DONE": following}}
        else:
            groups[f"g{index}"] = {
                "initial": names[0],
                "states": children,
                "on": {"DONE": following},
            }
        made += size
        index += 1
    groups[f"g{index - 1}"]["on"] = {"DONE": "g0"}
    return {"id": f"m{states}", "initial": "g0", "states": groups}


def median_seconds(action: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def run_dot(dot: str, text: str, fmt: str, extra: tuple[str, ...] = ()) -> None:
    subprocess.run([dot, f"-T{fmt}", *extra], input=text.encode(), capture_output=True, check=True)


def measure(size: int, repeat: int, dot: str | None) -> dict[str, Any]:
    model: MachineModel = parse_machine(grouped_machine(size))
    text = machine_dot(model)
    parents = parent_node_ids(model)
    parent_texts = [machine_dot(model, parent_view(model, parent)) for parent in parents]
    row: dict[str, Any] = {"states": size, "parents": len(parents), "dotBytes": len(text)}
    row["statekitSvg"] = median_seconds(lambda: render_svg(model), repeat)
    row["statekitPng"] = median_seconds(lambda: render_png(model), repeat)
    row["statekitParentPngs"] = median_seconds(lambda: render_parent_pngs(model, parents), repeat)
    if dot is not None:
        row["dotSvg"] = median_seconds(lambda: run_dot(dot, text, "svg"), repeat)
        row["dotPng"] = median_seconds(lambda: run_dot(dot, text, "png", PNG_ARGS), repeat)
        row["dotParentPngs"] = median_seconds(
            lambda: [run_dot(dot, t, "png", PNG_ARGS) for t in parent_texts], repeat
        )
    return row


def table(rows: list[dict[str, Any]]) -> str:
    def cell(row: dict[str, Any], key: str) -> str:
        return f"{row[key]:.2f}" if key in row else "n/a"

    lines = [
        "| states | parents | SVG statekit | SVG dot | PNG statekit | PNG dot "
        "| PNG per parent statekit | PNG per parent dot |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        lines.append(
            f"| {row['states']} | {row['parents']} | {cell(row, 'statekitSvg')} | {cell(row, 'dotSvg')} "
            f"| {cell(row, 'statekitPng')} | {cell(row, 'dotPng')} "
            f"| {cell(row, 'statekitParentPngs')} | {cell(row, 'dotParentPngs')} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    engine = find_engine()
    if engine is None:
        print("no layout engine (pip install graphviz-pure)", file=sys.stderr)
        return 1
    dot = shutil.which("dot")
    print(
        f"statekit engine: {engine.name} ({engine.path}); comparison: {dot or 'dot not installed'}"
    )
    rows = [measure(int(size), args.repeat, dot) for size in args.sizes.split(",")]
    print("seconds, median of", args.repeat, "run(s)")
    print(table(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
