"""The measuring loop shared by every Python peer worker (the node worker mirrors it).

A worker is one process for one (peer, machine) pair. It:

1. checks the peer against the machine's expected trace, event by event, for two cycles
   (a benchmark of an engine that does the wrong thing, or nothing, is worthless);
2. warms up and estimates the rate, then sizes one repeat to about ``--seconds`` (capped
   at ``--events``), so slow peers do not stretch the run and fast ones are not measured
   on a few microseconds;
3. times ``--repeats`` repeats, each on a fresh instance started in the initial state
   (creating the instance is not timed), checks the final configuration after each repeat
   against the trace (that proves every event was processed), and keeps the best.

It prints one JSON object on stdout. Garbage collection stays enabled during a repeat
(allocation is part of an engine's cost); a full collection runs before each repeat.

A spec's cycle holds event types or event objects (with a payload); an item
``{"type": "$advance", "ms": N}`` moves the peer's simulated clock instead of sending an
event. A spec with ``"walk": true`` is not periodic: its cycle is one long stream, a repeat
sends a prefix of it, and ``trace`` has one configuration per item. ``contexts``, when the
spec has them (XState's context after each item), are compared too by peers that can show a
context in XState's shape (``Instance.context``).
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

CALIBRATION_SECONDS = 0.2
VALIDATION_CYCLES = 2


ADVANCE = "$advance"


def event_type(item: Any) -> str:
    """The type of a cycle item (a type string or an event object)."""
    return item if isinstance(item, str) else str(item["type"])


def event_object(item: Any) -> dict[str, Any]:
    """A cycle item as an XState event object."""
    return {"type": item} if isinstance(item, str) else dict(item)


class Instance(Protocol):
    """A started machine of one peer (it may also have `context()`, in XState's shape)."""

    def run(self, events: Sequence[Any]) -> None:
        """Send every event, in order (this is the timed loop)."""

    def leaves(self) -> list[str]:
        """The active atomic states as dotted paths from the root (root id excluded)."""


class Peer(Protocol):
    """How one library builds and drives a benchmark machine."""

    label: str
    version: str

    def encode(self, item: Any) -> Any:
        """What this peer's run takes for one cycle item (prepared untimed)."""

    def new_instance(self) -> Instance:
        """A fresh instance, started, in the machine's initial state."""


PeerFactory = Callable[[dict[str, Any]], Peer]


class NotPorted(Exception):
    """The machine has not been written for this peer: reported, neither timed nor failed."""


def require_ported(spec: dict[str, Any], ported: Sequence[str]) -> None:
    """Refuse a machine this peer's module has no port of (the peer may well express it)."""
    if spec["name"] not in ported:
        raise NotPorted(f"not ported to this library (ported: {', '.join(ported)})")


def leaves_of_value(value: Any, prefix: str = "") -> list[str]:
    """Flatten an XState state value ('a', {'p': {'q': 'r'}, ...}) into sorted leaf paths."""
    if isinstance(value, str):
        return [prefix + value]
    found: list[str] = []
    for key, child in value.items():
        found.extend(leaves_of_value(child, f"{prefix}{key}."))
    return sorted(found)


def _expected_after(spec: dict[str, Any], count: int) -> list[str]:
    if count == 0:
        return sorted(spec["initial"])
    trace = spec["trace"]
    if spec.get("walk"):
        return sorted(trace[count - 1])
    return sorted(trace[(count - 1) % len(trace)])


def _events(peer: Peer, spec: dict[str, Any], count: int, start: int = 0) -> list[Any]:
    """Items `start` to `start + count` of the (repeated, unless a walk) cycle, encoded."""
    cycle = spec["cycle"]
    if spec.get("walk"):
        return [peer.encode(item) for item in cycle[start:start + count]]
    encoded = [peer.encode(item) for item in cycle]
    return [encoded[index % len(encoded)] for index in range(start, start + count)]


def validate(peer: Peer, spec: dict[str, Any]) -> str | None:
    """Return a description of the first divergence from the expected trace, or None."""
    instance = peer.new_instance()
    if sorted(instance.leaves()) != _expected_after(spec, 0):
        return f"initial configuration {sorted(instance.leaves())} != {spec['initial']}"
    cycle = spec["cycle"]
    contexts = spec.get("contexts")
    context_of = getattr(instance, "context", None)
    steps = len(cycle) if spec.get("walk") else VALIDATION_CYCLES * len(cycle)
    for step in range(steps):
        item = cycle[step % len(cycle)]
        instance.run([peer.encode(item)])
        expected = _expected_after(spec, step + 1)
        actual = sorted(instance.leaves())
        if actual != expected:
            return f"after event #{step + 1} ({item}): {actual} != {expected}"
        if contexts and context_of is not None:
            context, expected_context = context_of(), contexts[step % len(contexts)]
            if context != expected_context:
                return f"context after event #{step + 1} ({item}): {context} != {expected_context}"
    return None


def _rate_estimate(peer: Peer, spec: dict[str, Any]) -> float:
    """Warm up, then estimate events per second (the second window, once warm)."""
    _rate_window(peer, spec)
    return _rate_window(peer, spec)


def _rate_window(peer: Peer, spec: dict[str, Any]) -> float:
    instance = peer.new_instance()
    chunk = min(len(spec["cycle"]) * 10, 1000)
    sent = 0
    started = time.perf_counter()
    elapsed = 0.0
    while elapsed < CALIBRATION_SECONDS:
        if spec.get("walk") and sent + chunk > len(spec["cycle"]):
            break
        instance.run(_events(peer, spec, chunk, sent))
        sent += chunk
        chunk *= 2
        elapsed = time.perf_counter() - started
    return sent / elapsed


def measure(
    peer: Peer, spec: dict[str, Any], max_events: int, seconds: float, repeats: int
) -> dict[str, Any]:
    """Validate, calibrate and time one peer on one machine."""
    result: dict[str, Any] = {"label": peer.label, "version": peer.version}
    divergence = validate(peer, spec)
    if divergence is not None:
        result["error"] = f"wrong behaviour: {divergence}"
        return result
    rate = _rate_estimate(peer, spec)
    cycle_length = len(spec["cycle"])
    count = int(min(max_events, max(cycle_length * 20, rate * seconds)))
    if spec.get("walk"):
        count = min(count, cycle_length)
    elif count % cycle_length == 0:
        # An event count that is not a whole number of cycles makes the final check sharper.
        count += 1
    events = _events(peer, spec, count)
    expected_final = _expected_after(spec, count)
    timings: list[float] = []
    cpu_timings: list[float] = []
    for _ in range(repeats):
        instance = peer.new_instance()
        gc.collect()  # start each repeat without the previous repeat's garbage
        cpu_started = time.process_time()
        started = time.perf_counter()
        instance.run(events)
        timings.append(time.perf_counter() - started)
        cpu_timings.append(time.process_time() - cpu_started)
        final = sorted(instance.leaves())
        if final != expected_final:
            result["error"] = f"after {count} events ended in {final}, expected {expected_final}"
            return result
    best = min(timings)
    result.update(
        events=count,
        repeats=repeats,
        best_seconds=best,
        events_per_second=count / best,
        median_events_per_second=count / statistics.median(timings),
        events_per_cpu_second=count / max(min(cpu_timings), 1e-9),
    )
    return result


def main(factory: PeerFactory, argv: Sequence[str] | None = None) -> None:
    """Command line of a peer worker: prints one JSON result."""
    parser = argparse.ArgumentParser(description="Time one peer on one benchmark machine.")
    parser.add_argument("--machine", type=Path, required=True, help="bench/machines/*.json")
    parser.add_argument("--events", type=int, default=1_000_000, help="max events per repeat")
    parser.add_argument("--seconds", type=float, default=0.5, help="target seconds per repeat")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    spec = json.loads(args.machine.read_text())
    try:
        peer = factory(spec)
        result = measure(peer, spec, args.events, args.seconds, args.repeats)
    except NotPorted as reason:
        result = {"skipped": str(reason)}
    except Exception as error:  # report any failure of the peer as data, not a traceback
        result = {"error": f"{type(error).__name__}: {error}"}
    result["machine"] = spec["name"]
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")
