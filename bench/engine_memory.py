"""Engine memory: flat over many events and over many distinct event types.

    python bench/engine_memory.py                      # 10^6 events, 10^5 event types
    python bench/engine_memory.py --events 200000 --types 20000

Two runs, each on statekit's pure ``transition()`` and on an ``Actor``:

- **events**: the wide machine's seeded random walk (bench/machines/wide.py: 632 states,
  25,642 distinct configurations in its first 40,000 events), repeated to ``--events``
  events, so every cache the engine keeps (plans, selections, state values) fills up;
- **event types**: ``--types`` distinct event types (``order.<n>.updated``) sent to a machine
  whose states declare ``order.*`` (a wildcard descriptor, which the candidate cache is for)
  and exact types, so per-type caches fill up.

It reports the process's resident set (``ru_maxrss`` peak and current RSS from
/proc/self/statm) and the bytes traced by ``tracemalloc`` after a first tenth of the run and
at the end: "growth" is end minus that first tenth. The goal is growth within 20 MB.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH / "machines"))

import wide  # noqa: E402

import statekit  # noqa: E402

MB = 1024 * 1024

TYPES_CONFIG: dict[str, Any] = json.loads((BENCH / "machines" / "orders.json").read_text())


def _rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def walk_events(count: int) -> Iterator[dict[str, str]]:
    stream = [{"type": t} for t in wide.walk(wide.DEFAULT_EVENTS)]
    for index in range(count):
        yield stream[index % len(stream)]


def type_events(count: int) -> Iterator[dict[str, str]]:
    for index in range(count):
        yield {"type": f"order.{index}.updated"}
        if index % 7 == 0:
            yield {"type": "CLOSE" if index % 2 else "OPEN"}


def drive(machine: Any, api: str) -> Callable[[dict[str, str]], None]:
    if api == "actor":
        actor = statekit.Actor(machine).start()
        return actor.send
    state = {"snapshot": statekit.initial_transition(machine)[0]}

    def send(event: dict[str, str]) -> None:
        state["snapshot"], _ = statekit.transition(machine, state["snapshot"], event)

    return send


def measure(name: str, machine: Any, events: Iterator[dict[str, str]], total: int, api: str) -> dict[str, Any]:
    send = drive(machine, api)
    checkpoint = max(total // 10, 1)
    gc.collect()
    tracemalloc.start()
    first: tuple[int, int] | None = None
    for index, event in enumerate(events, 1):
        send(event)
        if index == checkpoint:
            gc.collect()
            first = (tracemalloc.get_traced_memory()[0], _rss())
    gc.collect()
    end = (tracemalloc.get_traced_memory()[0], _rss())
    tracemalloc.stop()
    assert first is not None
    return {
        "run": name, "api": api, "items": total,
        "traced_first_mb": first[0] / MB, "traced_end_mb": end[0] / MB,
        "traced_growth_mb": (end[0] - first[0]) / MB, "rss_growth_mb": (end[1] - first[1]) / MB,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--types", type=int, default=100_000)
    args = parser.parse_args(argv)
    rows = []
    for api in ("transition", "actor"):
        rows.append(measure("events (wide walk)", statekit.create_machine(wide.config()),
                            walk_events(args.events), args.events, api))
        # The type stream also interleaves CLOSE/OPEN; `total` counts the distinct types only.
        rows.append(measure("distinct event types", statekit.create_machine(TYPES_CONFIG),
                            type_events(args.types), args.types + args.types // 7 + 1, api))
    print("| run | API | items | traced after 1/10 (MB) | traced at end (MB) | traced growth (MB) | RSS growth (MB) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for row in rows:
        print(f"| {row['run']} | {row['api']} | {row['items']:,} | {row['traced_first_mb']:.1f} | "
              f"{row['traced_end_mb']:.1f} | {row['traced_growth_mb']:+.1f} | {row['rss_growth_mb']:+.1f} |")
    worst = max(max(row["traced_growth_mb"], row["rss_growth_mb"]) for row in rows)
    print(f"\nlargest growth: {worst:.1f} MB (goal: within 20 MB): {'met' if worst <= 20 else 'NOT met'}")
    return 0 if worst <= 20 else 1


if __name__ == "__main__":
    sys.exit(main())
