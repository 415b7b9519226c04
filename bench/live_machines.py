"""What owners, quotas, atomic commits and reclaim cost a live machine call: before and after.

    python bench/live_machines.py --before /work/wt/base/src --after src [--redis redis://127.0.0.1:6379/15] [--rounds 5]

Each side runs in its own process from its own source tree (`PYTHONPATH=<src>`, e.g. a checkout
of e361e51 for "before"), in interleaved rounds (the side that goes first alternates), and
measures through `statekit.tools.call` on each store: the median latency of a small
`send_events` (one event on a two-state machine, on a machine already started) and of
`start_machine`. Then, after only (before has no quota), the cost of one store save that checks a
quota while its owner already holds 100 and 5,000 records: the check must not grow with them.
Each figure is the median over the rounds; the ratio is after / before. The load average is
printed: on a shared machine, read the ratios rather than the absolute figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

MACHINE: dict[str, Any] = {"id": "bench", "initial": "off", "context": {"n": 0}, "states": {
    "off": {"on": {"FLIP": {"target": "on", "actions": {"type": "xstate.assign", "assignment": {"n": 1}}}}},
    "on": {"on": {"FLIP": "off"}}}}


def child(stores: list[str], calls: int) -> dict[str, Any]:
    """In the measured process: median ms of send_events and start_machine per store URL."""
    from statekit.tools import call
    from statekit.tools.registry import ToolContext

    figures: dict[str, Any] = {}
    for url in stores:
        try:
            context = ToolContext(store_url=url, live_max_machines=100_000)  # type: ignore[call-arg]
        except TypeError:  # before: no quota settings
            context = ToolContext(store_url=url)
        handle = call("start_machine", {"machine": MACHINE}, context=context)["machineHandle"]
        sends, starts = [], []
        for _ in range(20):  # warm up the store and the machine
            call("send_events", {"machineHandle": handle, "events": ["FLIP"]}, context=context)
        for _ in range(calls):
            began = time.perf_counter()
            call("send_events", {"machineHandle": handle, "events": ["FLIP"]}, context=context)
            sends.append(time.perf_counter() - began)
        for _ in range(calls // 3):
            began = time.perf_counter()
            started = call("start_machine", {"machine": MACHINE}, context=context)
            starts.append(time.perf_counter() - began)
            call("stop_machine", {"machineHandle": started["machineHandle"]}, context=context)
        figures[url.split(":")[0]] = {"send_ms": statistics.median(sends) * 1e3,
                                      "start_ms": statistics.median(starts) * 1e3}
    return figures


async def quota_cost(stores: list[str]) -> dict[str, dict[int, float]]:
    """After only: ms per save that checks a quota while the owner holds 100 and 5,000 records."""
    from statekit.gate.store import Quota
    from statekit.live.stores import store_from_url

    quota = Quota(max_records=1_000_000, max_bytes=10**12)
    costs: dict[str, dict[int, float]] = {}
    for url in stores:
        store = store_from_url(url)
        label = url.split(":")[0]
        costs[label] = {}
        held = 0
        for target in (100, 5000):
            while held < target:
                await store.save(f"bench-held-{held}", "x" * 500, None, owner="bench", ttl_seconds=600, quota=quota)
                held += 1
            began = time.perf_counter()
            for index in range(200):
                await store.save(f"bench-probe-{target}-{index}", "x" * 500, None, owner="bench-probe",
                                 ttl_seconds=600, quota=quota)
                await store.save(f"bench-extra-{target}-{index}", "x" * 500, None, owner="bench",
                                 ttl_seconds=600, quota=quota)
            costs[label][target] = (time.perf_counter() - began) / 400 * 1e3
            held += 200
    return costs


def run_side(source: str, stores: list[str], calls: int) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": os.path.abspath(source)}
    output = subprocess.run([sys.executable, __file__, "--child", json.dumps(stores), "--calls", str(calls)],
                            env=env, check=True, capture_output=True, text=True).stdout
    return dict(json.loads(output.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", help="source tree of the baseline (its src/)")
    parser.add_argument("--after", default="src", help="source tree measured (default: src)")
    parser.add_argument("--redis", help="a Redis URL to measure too (a database it may fill and flush)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(json.loads(args.child), args.calls)))
        return
    if not args.before:
        parser.error("--before is required")
    workdir = tempfile.mkdtemp(prefix="statekit-live-bench-")
    print(f"load average at start: {os.getloadavg()}")
    rounds: list[dict[str, dict[str, Any]]] = []
    for index in range(args.rounds):
        stores = ["memory://", f"sqlite://{workdir}/round{index}.db"] + ([args.redis] if args.redis else [])
        sides = [("before", args.before), ("after", args.after)]
        if index % 2:
            sides.reverse()
        rounds.append({name: run_side(source, stores, args.calls) for name, source in sides})
    print(f"{'store':<8} {'call':<12} {'before ms':>10} {'after ms':>10} {'after/before':>13}")
    for store in rounds[0]["before"]:
        for figure, label in (("send_ms", "send_events"), ("start_ms", "start_machine")):
            before = statistics.median(r["before"][store][figure] for r in rounds)
            after = statistics.median(r["after"][store][figure] for r in rounds)
            ratio = statistics.median(r["after"][store][figure] / r["before"][store][figure] for r in rounds)
            print(f"{store:<8} {label:<12} {before:>10.3f} {after:>10.3f} {ratio:>13.2f}")
    sys.path.insert(0, os.path.abspath(args.after))
    stores = ["memory://", f"sqlite://{workdir}/quota.db"] + ([args.redis] if args.redis else [])
    for store, by_held in asyncio.run(quota_cost(stores)).items():
        print(f"{store:<8} quota-checked save: " + ", ".join(f"{ms:.3f} ms with {held} held"
                                                             for held, ms in by_held.items()))
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
