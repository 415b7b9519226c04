"""Scale-out in CI, small: 2 uvicorn workers sharing one real Redis (the bench runs it bigger).

`bench/gate_scaleout.py` holds the load and its checks (exactly-once transitions, each timer
fired once, list_changed relayed across processes); this runs it with bounded, small loops.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))

from gate_scaleout import run_load, workers  # noqa: E402


async def test_two_workers_share_one_redis_exactly_once(redis_url: str) -> None:
    prefix = f"ci:{time.time_ns()}:"
    with workers(redis_url, 2, prefix, hold_ms=200) as url:
        figures = await run_load(
            url,
            flows=12,
            racers=4,
            clients=4,
            hold_ms=200,
            principals=3,
            redis_url=redis_url,
            prefix=prefix,
        )
    # run_load raised if any check failed; these restate the contract for the reader.
    assert figures["approve_wins"] == 6 and figures["approve_side_effects"] == 6
    assert figures["timers_fired"] == 6
    assert figures["listen_streams_notified"] == 3
