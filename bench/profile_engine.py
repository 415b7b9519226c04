"""Profile statekit's engine on the benchmark machines with cProfile.

    python bench/profile_engine.py                       # both machines, both APIs
    python bench/profile_engine.py --machines player --api transition --events 50000
    python bench/profile_engine.py --dump /tmp/prof      # also write .prof files (snakeviz)

For each machine and API it sends the machine's event cycle ``--events`` times under
cProfile, checks the final configuration against the expected trace (a profile of the wrong
behaviour is useless), and prints the top ``--top`` functions by cumulative time and by
internal (tot) time, plus the number of function calls per event.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH / "peers"))

from harness import leaves_of_value  # noqa: E402

import statekit  # noqa: E402


def load_spec(name: str) -> dict[str, Any]:
    """The benchmark machine's config, event cycle and expected trace."""
    spec: dict[str, Any] = json.loads((BENCH / "machines" / f"{name}.json").read_text())
    return spec


def _value_of(snapshot: Any) -> Any:
    return snapshot["value"] if isinstance(snapshot, dict) else snapshot.value


def drive_transition(machine: Any, events: list[dict[str, str]]) -> Any:
    """Send every event through the pure API; return the final state value."""
    transition = statekit.transition
    snapshot, _ = statekit.initial_transition(machine)
    for event in events:
        snapshot, _ = transition(machine, snapshot, event)
    return _value_of(snapshot)


def drive_actor(machine: Any, events: list[dict[str, str]]) -> Any:
    """Send every event to a started Actor; return the final state value."""
    actor = statekit.Actor(machine)
    actor.start()
    send = actor.send
    for event in events:
        send(event)
    return _value_of(actor.get_snapshot())


DRIVERS = {"transition": drive_transition, "actor": drive_actor}


def profile_one(machine_name: str, api: str, count: int, top: int, dump: Path | None) -> str:
    """Profile one (machine, API) pair; return the printed report."""
    spec = load_spec(machine_name)
    machine = statekit.create_machine(spec["config"])
    cycle = [{"type": event_type} for event_type in spec["cycle"]]
    events = [cycle[index % len(cycle)] for index in range(count)]
    DRIVERS[api](machine, events[: len(cycle) * 10])  # warm caches outside the profile

    profiler = cProfile.Profile()
    profiler.enable()
    final_value = DRIVERS[api](machine, events)
    profiler.disable()

    expected = sorted(spec["trace"][(count - 1) % len(spec["trace"])])
    actual = leaves_of_value(final_value)
    out = io.StringIO()
    header = f"== {machine_name} / {api}: {count:,} events"
    if actual != expected:
        header += f"  WRONG FINAL STATE {actual} != {expected}"
    stats = pstats.Stats(profiler, stream=out)
    print(header, file=out)
    print(f"   {stats.total_calls / count:.1f} function calls per event", file=out)  # type: ignore[attr-defined]
    if dump is not None:
        dump.mkdir(parents=True, exist_ok=True)
        stats.dump_stats(dump / f"{machine_name}-{api}.prof")
    stats.strip_dirs()
    for order in ("cumulative", "tottime"):
        print(f"-- top {top} by {order}", file=out)
        stats.sort_stats(order).print_stats(top)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--machines", default="flat,player")
    parser.add_argument("--api", default="transition,actor", help="transition,actor")
    parser.add_argument("--events", type=int, default=30_000)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--dump", type=Path, help="directory for .prof files")
    args = parser.parse_args(argv)
    for machine_name in args.machines.split(","):
        for api in args.api.split(","):
            print(profile_one(machine_name, api, args.events, args.top, args.dump))
    return 0


if __name__ == "__main__":
    sys.exit(main())
