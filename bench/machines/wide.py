"""The wide machine: 3 parallel regions of 209 states each, deep history, a seeded random walk.

    python bench/machines/wide.py > /tmp/wide.json     # the spec bench/engine.py builds

Structure (632 state nodes): ``wide`` = ``running`` | ``suspended``. ``running`` holds a
deep history state ``hist`` and the parallel ``grid`` with regions ``r0``, ``r1``, ``r2``;
each region has 8 groups ``g0``..``g7``, each group 20 leaves ``s0``..``s19`` and a nested
compound ``inner`` with 4 leaves ``i0``..``i3``. Transitions are declared at every level:

- on leaves: ``rN.next`` / ``rN.prev`` (the neighbouring leaf), ``rN.dive`` (into ``inner``),
  and ``all.next`` (the next leaf in every region at once: three transitions in one microstep);
- on ``inner``: ``rN.up`` (back to the group's ``s0``); on its leaves ``rN.next``;
- on groups: ``rN.skip`` (the next group); on regions: ``rN.jump.K`` (group K);
- on ``running``: ``SUSPEND`` (records the deep history); on ``suspended``: ``RESUME``
  (through the deep history: restores every region's leaf) and ``RESTART`` (default entry).

The event stream is a seeded random sequence over that alphabet, so it reaches thousands of
distinct configurations: a cache keyed by configuration misses most of the time. It is not
periodic, so the spec says ``"walk": true``: a repeat sends a prefix of the stream and the
expected configuration after each event comes from XState (bench/engine.py asks node).
"""

from __future__ import annotations

import json
import random
import sys
from typing import Any

REGIONS = 3
GROUPS = 8
LEAVES = 20
INNER = 4
DEFAULT_EVENTS = 40_000
SEED = 20261201


def _leaf(region: str, index: int) -> dict[str, Any]:
    return {
        "on": {
            f"{region}.next": f"s{(index + 1) % LEAVES}",
            f"{region}.prev": f"s{(index - 1) % LEAVES}",
            f"{region}.dive": "inner",
            "all.next": f"s{(index + 1) % LEAVES}",
        }
    }


def _group(region: str, group: int) -> dict[str, Any]:
    states: dict[str, Any] = {f"s{i}": _leaf(region, i) for i in range(LEAVES)}
    states["inner"] = {
        "initial": "i0",
        "on": {f"{region}.up": "s0"},
        "states": {
            f"i{m}": {"on": {f"{region}.next": f"i{(m + 1) % INNER}", "all.next": f"i{(m + 1) % INNER}"}}
            for m in range(INNER)
        },
    }
    return {"initial": "s0", "on": {f"{region}.skip": f"g{(group + 1) % GROUPS}"}, "states": states}


def _region(region: str) -> dict[str, Any]:
    return {
        "initial": "g0",
        "on": {f"{region}.jump.{k}": f".g{k}" for k in range(GROUPS)},
        "states": {f"g{g}": _group(region, g) for g in range(GROUPS)},
    }


def config() -> dict[str, Any]:
    regions = [f"r{n}" for n in range(REGIONS)]
    return {
        "id": "wide",
        "initial": "running",
        "states": {
            "running": {
                "initial": "grid",
                "on": {"SUSPEND": "suspended"},
                "states": {
                    "hist": {"type": "history", "history": "deep"},
                    "grid": {"type": "parallel", "states": {r: _region(r) for r in regions}},
                },
            },
            "suspended": {"on": {"RESUME": "running.hist", "RESTART": "running"}},
        },
    }


def alphabet() -> list[tuple[str, float]]:
    """Event types with their weights in the random walk."""
    weighted: list[tuple[str, float]] = []
    for n in range(REGIONS):
        region = f"r{n}"
        weighted += [(f"{region}.next", 3.0), (f"{region}.prev", 1.0), (f"{region}.dive", 0.4),
                     (f"{region}.up", 0.6), (f"{region}.skip", 0.8)]
        weighted += [(f"{region}.jump.{k}", 0.1) for k in range(GROUPS)]
    weighted += [("all.next", 1.0), ("SUSPEND", 0.15), ("RESUME", 1.5), ("RESTART", 0.05)]
    return weighted


def walk(count: int, seed: int = SEED) -> list[str]:
    """`count` event types drawn with the alphabet's weights from a seeded generator."""
    rng = random.Random(seed)
    types, weights = zip(*alphabet(), strict=True)
    return rng.choices(types, weights=weights, k=count)


def count_states(node: dict[str, Any]) -> int:
    return 1 + sum(count_states(child) for child in node.get("states", {}).values())


def spec(count: int = DEFAULT_EVENTS) -> dict[str, Any]:
    machine = config()
    return {
        "name": "wide",
        "title": f"wide parallel machine ({count_states(machine)} states, 3 regions, deep history), "
                 f"seeded random walk",
        "description": (__doc__ or "").split("\n\n")[1],
        "config": machine,
        "initial": [f"running.grid.r{n}.g0.s0" for n in range(REGIONS)],
        "walk": True,
        "cold": True,
        "cycle": walk(count),
    }


if __name__ == "__main__":
    json.dump(spec(int(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_EVENTS), sys.stdout)
    sys.stdout.write("\n")
