"""Profile statekit's engine on the benchmark machines with cProfile.

    python bench/profile_engine.py                       # all five machines, both APIs
    python bench/profile_engine.py --machines wide --api transition --events 40000
    python bench/profile_engine.py --machines workflow --guards js
    python bench/profile_engine.py --dump /tmp/prof      # also write .prof files (snakeviz)
    python bench/profile_engine.py --machines timers --split   # the Actor's own time, without cProfile

Each machine is driven exactly as bench/engine.py's statekit worker drives it (the same
peer code, bench/peers/peer_statekit.py: implementations, the virtual clock of ``timers``,
a freshly compiled machine for a ``cold`` spec such as ``wide``). Before profiling, the peer
is checked event by event against XState's own trace (taken in node, as bench/engine.py
does): a profile of the wrong behaviour is useless. Then ``--events`` items are sent under
cProfile; the report gives the top ``--top`` functions by cumulative and by internal (tot)
time, and the number of function calls per event.

``--split`` measures instead, by CPU time and without a profiler, how an ``Actor``'s time per
item divides between the engine and the actor itself (its mailbox, running actions, the
clock): the actor is run once with the engine's results recorded, then timed as is and with
the engine replaced by a replay of those results (the same snapshots and actions, in order).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import pstats
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH / "peers"))
sys.path.insert(0, str(BENCH))

from harness import _events, validate  # noqa: E402
from peer_statekit import StatekitPeer  # noqa: E402

import statekit.engine.actor as actor_module  # noqa: E402
from engine import MACHINES, prepare_spec  # noqa: E402


def profile_one(spec: dict[str, object], api: str, guards: str, count: int, top: int,
                dump: Path | None) -> str:
    """Profile one (machine, API) pair; return the printed report."""
    peer = StatekitPeer(spec, api, guards)
    name = str(spec["name"])
    divergence = validate(peer, spec)
    if divergence is not None:
        return f"== {name} / {api}: WRONG BEHAVIOUR, not profiled: {divergence}\n"
    cycle = spec["cycle"]
    assert isinstance(cycle, list)
    if spec.get("walk"):
        count = min(count, len(cycle))
    events = _events(peer, spec, count)
    peer.new_instance().run(events[: min(len(events), len(cycle) * 10)])  # warm the interpreter
    instance = peer.new_instance()  # a cold spec gets a fresh machine here: its caches start empty
    profiler = cProfile.Profile()
    profiler.enable()
    instance.run(events)
    profiler.disable()

    out = io.StringIO()
    label = f"{api}, {guards} guards" if guards != "python" else api
    stats = pstats.Stats(profiler, stream=out)
    print(f"== {name} / {label}: {count:,} events", file=out)
    print(f"   {stats.total_calls / count:.1f} function calls per event", file=out)  # type: ignore[attr-defined]
    if dump is not None:
        dump.mkdir(parents=True, exist_ok=True)
        stats.dump_stats(dump / f"{name}-{api}-{guards}.prof")
    stats.strip_dirs()
    for order in ("cumulative", "tottime"):
        print(f"-- top {top} by {order}", file=out)
        stats.sort_stats(order).print_stats(top)
    return out.getvalue()


#: The engine function `Actor` calls once per event (what `split_actor` records and replays).
ENGINE_ENTRY = "run_macrostep"


def _replaying(results: Iterator[Any]) -> Callable[..., Any]:
    def replay(*args: Any) -> Any:
        return next(results)

    return replay


def split_actor(spec: dict[str, object], guards: str, count: int, repeats: int = 5) -> str:
    """The Actor's CPU time per item: all of it, and its own part (the engine replayed)."""
    peer = StatekitPeer(spec, "actor", guards)
    name = str(spec["name"])
    divergence = validate(peer, spec)
    if divergence is not None:
        return f"== {name} / actor: WRONG BEHAVIOUR, not measured: {divergence}\n"
    cycle = spec["cycle"]
    assert isinstance(cycle, list)
    if spec.get("walk"):
        count = min(count, len(cycle))
    events = _events(peer, spec, count)
    engine = getattr(actor_module, ENGINE_ENTRY)
    recorded: list[Any] = []

    def recording(*args: Any) -> Any:
        result = engine(*args)
        recorded.append(result)
        return result

    def run(step: Callable[..., Any] | None) -> float:
        instance = peer.new_instance()
        setattr(actor_module, ENGINE_ENTRY, step or engine)
        gc.collect()
        start = time.process_time()
        try:
            instance.run(events)
        finally:
            setattr(actor_module, ENGINE_ENTRY, engine)
        return (time.process_time() - start) / len(events) * 1e6

    run(recording)
    whole = min(run(None) for _ in range(repeats))
    own = min(run(_replaying(iter(recorded))) for _ in range(repeats))
    return (f"== {name} / actor: {len(events):,} items, {len(recorded):,} macrosteps; CPU µs per item, best of "
            f"{repeats}\n   whole actor {whole:.2f}; the actor's own part (engine replayed) {own:.2f}; "
            f"the engine {whole - own:.2f}\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--machines", default=",".join(MACHINES))
    parser.add_argument("--api", default="transition,actor", help="transition,actor")
    parser.add_argument("--guards", default="python", help="python or js (machines with named guards)")
    parser.add_argument("--events", type=int, default=30_000)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--dump", type=Path, help="directory for .prof files")
    parser.add_argument("--split", action="store_true", help="the Actor's own CPU time per item, not profiled")
    args = parser.parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="statekit-profile-"))
    for machine_name in args.machines.split(","):
        _, spec = prepare_spec(machine_name, workdir)
        if args.split:
            print(split_actor(spec, args.guards, args.events))
            continue
        for api in args.api.split(","):
            print(profile_one(spec, api, args.guards, args.events, args.top, args.dump))
    return 0


if __name__ == "__main__":
    sys.exit(main())
