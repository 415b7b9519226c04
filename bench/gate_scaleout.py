"""Scale-out: N uvicorn worker processes sharing one Redis, loaded over loopback with bounded loops.

    python bench/gate_scaleout.py                         # 4 workers, 200 workflows, 8 racers each
    python bench/gate_scaleout.py --workers 2 --flows 40  # smaller
    python bench/gate_scaleout.py --redis redis://127.0.0.1:6379/0   # an existing Redis
                                                          # (default: a throw-away redis-server)

The server is `tests/gate/scaleout_app.py` under `uvicorn --workers N` (one listening socket,
the kernel spreads connections over the workers), its state in one Redis. What is checked,
and counted in Redis by the server itself:

- exactly-once transitions: `racers` clients call `approve` on the same workflow at once;
  exactly one call succeeds and the approve side effect ran exactly once per workflow;
- each timer fired once: the other workflows go to `hold` (an `after` timer of `--hold-ms`)
  while readers poll them through every worker and every worker's sweeper runs; each ends
  `expired`, its timer hook counted once, one timer entry in its audit trail;
- list_changed across processes: per principal, a listen stream on one connection and a
  call on others (any worker); every stream must get `ToolsListChanged`.

Prints the figures (and writes them with --json). Timings are wall-clock on this machine:
report them with the machine load.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import AsyncExitStack, contextmanager
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

REPO = Path(__file__).resolve().parents[1]
APP_DIR = REPO / "tests" / "gate"
MODERN = "2026-07-28"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[bytes], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port}")


@contextmanager
def redis_server() -> Iterator[str]:
    """A throw-away redis-server on loopback."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("redis-server is not installed (apt-get install redis-server)")
    port = free_port()
    with tempfile.TemporaryDirectory() as workdir:
        process = subprocess.Popen(
            [
                binary,
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                workdir,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_for_port(port, process)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            process.terminate()
            process.wait(timeout=10)


@contextmanager
def workers(
    redis_url: str, count: int, prefix: str, hold_ms: int, *, relay: bool = True
) -> Iterator[str]:
    """`uvicorn --workers count` serving the scale-out app; yields its MCP URL."""
    port = free_port()
    env = {
        **os.environ,
        "STATEKIT_GATE_REDIS": redis_url,
        "STATEKIT_GATE_PREFIX": prefix,
        "STATEKIT_GATE_HOLD_MS": str(hold_ms),
        "STATEKIT_GATE_NO_RELAY": "0" if relay else "1",
    }
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "scaleout_app:app",
            "--app-dir",
            str(APP_DIR),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--workers",
            str(count),
            "--log-level",
            "warning",
        ],
        env=env,
    )
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0


class Load:
    """Bounded-loop clients against one URL, with per-call latencies."""

    def __init__(self, url: str, clients: int) -> None:
        self.url = url
        self.clients = clients
        self.latencies: list[float] = []
        self.pids: set[int] = set()

    async def call(self, client: Client, name: str, arguments: dict[str, Any]) -> Any:
        started = time.perf_counter()
        result = await client.call_tool(name, arguments)
        self.latencies.append(time.perf_counter() - started)
        content = result.structured_content or {}
        if isinstance(content.get("pid"), int):
            self.pids.add(content["pid"])
        return result


async def run_load(
    url: str,
    *,
    flows: int,
    racers: int,
    clients: int,
    hold_ms: int,
    principals: int,
    redis_url: str,
    prefix: str,
) -> dict[str, Any]:
    """Drive the app; returns the figures and the exactly-once checks (raises if one fails)."""
    import redis.asyncio

    load = Load(url, clients)
    async with AsyncExitStack() as stack:
        pool = [await stack.enter_async_context(Client(url, mode=MODERN)) for _ in range(clients)]
        started = time.perf_counter()
        created = await asyncio.gather(
            *(load.call(pool[i % clients], "create", {}) for i in range(flows))
        )
        handles = [result.structured_content["flow_id"] for result in created]
        racing, holding = handles[: flows // 2], handles[flows // 2 :]
        await asyncio.gather(
            *(load.call(pool[i % clients], "submit", {"flow_id": h}) for i, h in enumerate(racing)),
            *(load.call(pool[i % clients], "hold", {"flow_id": h}) for i, h in enumerate(holding)),
        )
        hold_started = time.perf_counter()
        # The race: `racers` concurrent approves per workflow, spread over the pool.
        race_started = time.perf_counter()
        outcomes = await asyncio.gather(
            *(
                load.call(pool[(i * racers + j) % clients], "approve", {"flow_id": h})
                for i, h in enumerate(racing)
                for j in range(racers)
            )
        )
        race_seconds = time.perf_counter() - race_started
        wins = sum(not outcome.is_error for outcome in outcomes)
        codes: dict[str, int] = {}
        for outcome in outcomes:
            if outcome.is_error and outcome.structured_content:
                code = outcome.structured_content["code"]
                codes[code] = codes.get(code, 0) + 1
        # Timers: poll the held workflows through every connection until all expired.
        polls = 0
        while True:
            states = await asyncio.gather(
                *(load.call(random.choice(pool), "status", {"flow_id": h}) for h in holding)
            )
            polls += len(states)
            if all(s.structured_content["state"] == "expired" for s in states):
                break
            if time.perf_counter() - hold_started > 60 + hold_ms / 1000:
                raise AssertionError("held workflows did not expire within a minute")
            await asyncio.sleep(0.02)
        total_seconds = time.perf_counter() - started

    counters = redis.asyncio.Redis.from_url(redis_url)
    try:
        approvals = [
            int(await counters.get(f"{prefix}approved:flow/handle:{h}") or 0) for h in racing
        ]
        timers = [
            int(await counters.get(f"{prefix}timer-fired:flow/handle:{h}") or 0) for h in holding
        ]
        histories = []
        for handle in holding:
            raw = await counters.hget(f"{prefix}flow/handle:{handle}", "d")
            record = json.loads(raw)
            histories.append(sum(1 for e in record.get("history", []) if e["tool"] is None))
    finally:
        await counters.aclose()
    relayed = await relay_check(url, principals)

    figures = {
        "workflows": flows,
        "racers_per_workflow": racers,
        "client_connections": clients,
        "worker_pids_seen": len(load.pids),
        "calls": len(load.latencies),
        "calls_per_second": round(len(load.latencies) / total_seconds, 1),
        "latency_ms_p50": round(_percentile(load.latencies, 0.5) * 1000, 1),
        "latency_ms_p99": round(_percentile(load.latencies, 0.99) * 1000, 1),
        "race_seconds": round(race_seconds, 2),
        "approve_wins": wins,
        "approve_refusals": codes,
        "approve_side_effects": sum(approvals),
        "timers_fired": sum(timers),
        "status_polls": polls,
        "listen_streams_notified": relayed,
    }
    assert wins == len(racing), f"{wins} approvals won for {len(racing)} workflows"
    assert approvals == [1] * len(racing), "an approve side effect ran twice or never"
    assert timers == [1] * len(holding), f"timer firings per workflow: {timers}"
    assert histories == [1] * len(holding), f"timer entries per audit trail: {histories}"
    assert relayed == principals, f"{relayed} of {principals} listen streams were notified"
    return figures


async def relay_check(url: str, principals: int, wait: float = 30.0) -> int:
    """Per principal: a listen stream, then `open_till` on other connections; count notified streams."""

    def as_user(user: str) -> Client:
        transport = streamable_http_client(
            url, http_client=create_mcp_http_client(headers={"x-user": user})
        )
        return Client(transport, mode=MODERN)

    notified = 0

    async def one(index: int) -> bool:
        user = f"user-{index}-{random.random()}"
        async with (
            as_user(user) as listener,
            as_user(user) as caller,
            listener.listen(tools_list_changed=True) as events,
        ):
            iterator = aiter(events)
            result = await caller.call_tool("open_till", {})
            assert not result.is_error, result
            try:
                async with asyncio.timeout(wait):
                    event = await anext(iterator)
            except TimeoutError:
                return False
            return type(event).__name__ == "ToolsListChanged"

    for outcome in await asyncio.gather(*(one(i) for i in range(principals))):
        notified += int(outcome)
    return notified


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--flows", type=int, default=200)
    parser.add_argument("--racers", type=int, default=8)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--principals", type=int, default=16)
    parser.add_argument("--hold-ms", type=int, default=500)
    parser.add_argument("--redis", help="an existing Redis URL (default: start redis-server)")
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--control",
        action="store_true",
        help="also run the relay check with the relay off (streams on other workers miss changes)",
    )
    args = parser.parse_args()

    async def go(redis_url: str) -> dict[str, Any]:
        prefix = f"bench:{time.time_ns()}:"
        with workers(redis_url, args.workers, prefix, args.hold_ms) as url:
            figures = await run_load(
                url,
                flows=args.flows,
                racers=args.racers,
                clients=args.clients,
                hold_ms=args.hold_ms,
                principals=args.principals,
                redis_url=redis_url,
                prefix=prefix,
            )
        result = {"workers": args.workers, "load_average": os.getloadavg(), **figures}
        if args.control:
            control_prefix = f"control:{time.time_ns()}:"
            with workers(redis_url, args.workers, control_prefix, args.hold_ms, relay=False) as url:
                result["control_without_relay_streams_notified"] = await relay_check(
                    url, args.principals, wait=5.0
                )
        return result

    if args.redis:
        figures = asyncio.run(go(args.redis))
    else:
        with redis_server() as url:
            figures = asyncio.run(go(url))
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
