"""What the call supervisor costs a small call: `statekit serve` before and after, side by side.

    python bench/supervisor.py --before /work/wt/base/src --after src [--rounds 9]

Issue 21, point 2: the supervisor that bounds every tool call must not cost the users. Both
servers run from their own source tree (`PYTHONPATH=<src>`, e.g. a `git worktree` of e361e51
for "before") and are measured in one run, in interleaved rounds (the side that goes first
alternates), through the official `mcp` SDK client on loopback:

- stdio, 1 call in flight: the latency of one small call;
- stdio, `--stdio-inflight` calls in flight on the one session: its throughput;
- streamable HTTP (`--http --auth none`, 2026-07-28 stateless), `--clients` concurrent SDK
  clients sharing `--http-calls` calls: throughput and latency under load.

Every call is a small `validate_machine` or `simulate_machine` (alternating) on a machine whose
id, state names and events change with every call, so no cache of parsed machines or results
can answer it. Beside each sample's wall-clock figures, the CPU time the server and its worker
processes spent on it (psutil, reaped workers included) says what each call costs whatever the
load from other jobs. Each figure is the median over the rounds; each ratio is the median over the
rounds of after ÷ before, the two samples of a round taken back to back (the issue's goals:
latency at most 1.25x, throughput at least 1.0x). The load average is printed at
the start and the end: on a shared machine, read the ratios, not the absolute figures.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import re
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

MODERN = "2026-07-28"
LATENCY_GOAL = 1.25
THROUGHPUT_GOAL = 1.0
_counter = itertools.count()


def small_call() -> tuple[str, dict[str, Any]]:
    """The next small call: a machine no earlier call used (id, states and events all renamed)."""
    n = next(_counter)
    idle, busy, done = f"idle{n}", f"busy{n}", f"done{n}"
    machine = {"id": f"m{n}", "initial": idle, "states": {
        idle: {"on": {f"GO{n}": busy}},
        busy: {"on": {f"PAUSE{n}": idle, f"STOP{n}": done}},
        done: {"type": "final"}}}
    if n % 2:
        return "simulate_machine", {"machine": machine, "events": [f"GO{n}", f"PAUSE{n}", f"GO{n}", f"STOP{n}"]}
    return "validate_machine", {"machine": machine}


class CallFailed(Exception):
    """A small call was not answered with its result: the figures would mean nothing."""


async def timed_call(client: Client, latencies: list[float]) -> None:
    name, arguments = small_call()
    started = time.perf_counter()
    try:
        result = await client.call_tool(name, arguments)
    except Exception as error:  # a dropped connection, a protocol error
        raise CallFailed(f"{name}: {type(error).__name__}: {error}") from error
    latencies.append(time.perf_counter() - started)
    if result.is_error:
        raise CallFailed(f"{name} answered an error: {result.structured_content}")


@dataclass
class Sample:
    """One measurement: its calls' latencies and how long they took together."""

    latencies: list[float]
    elapsed: float
    #: CPU seconds the server and its worker processes spent meanwhile.
    server_cpu: float

    @property
    def cpu_ms_per_call(self) -> float:
        return self.server_cpu / len(self.latencies) * 1000

    @property
    def throughput(self) -> float:
        return len(self.latencies) / self.elapsed

    def percentile(self, fraction: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def tree_cpu_seconds(server: psutil.Process) -> float:
    """CPU seconds of `server` and every process below it, the reaped ones included."""
    total = 0.0
    for process in [server, *server.children(recursive=True)]:
        try:
            times = process.cpu_times()
        except psutil.NoSuchProcess:  # a worker that ended meanwhile: its parent has reaped it
            continue
        total += times.user + times.system + times.children_user + times.children_system
    return total


async def drive(server: psutil.Process, clients: list[Client], calls: int, inflight: int) -> Sample:
    """`calls` calls, `inflight` at a time, spread over `clients` (one worker per in-flight slot)."""
    latencies: list[float] = []
    remaining = iter(range(calls))

    async def worker(client: Client) -> None:
        for _ in remaining:
            await timed_call(client, latencies)

    cpu_before = tree_cpu_seconds(server)
    started = time.perf_counter()
    async with asyncio.timeout(300):
        await asyncio.gather(*(worker(clients[i % len(clients)]) for i in range(inflight)))
    elapsed = time.perf_counter() - started
    return Sample(latencies, elapsed, tree_cpu_seconds(server) - cpu_before)


def environment(src: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(src), "STATEKIT_PROVIDER": "none"}


@asynccontextmanager
async def http_server(src: Path) -> AsyncIterator[tuple[str, psutil.Process]]:
    """`statekit serve --http` from `src` on a free loopback port; yields its URL and process."""
    process = await asyncio.create_subprocess_exec(
        # An idle keep-alive connection closed by the server while the other side is measured
        # could be reused just as it closes: keep them open for the whole run.
        sys.executable, "-m", "statekit.server", "--http", "--auth", "none", "--port", "0", "--keep-alive-timeout", "600",
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        env=environment(src))
    assert process.stderr is not None
    stderr = process.stderr
    try:
        async with asyncio.timeout(60):
            while True:
                line = (await stderr.readline()).decode()
                if not line:
                    raise RuntimeError(f"the server from {src} exited before listening")
                found = re.search(r"listening on (http://\S+)", line)
                if found:
                    break

        async def drain() -> None:  # the server's later log lines must not fill the pipe
            while await stderr.readline():
                pass

        drained = asyncio.create_task(drain())
        yield found.group(1), psutil.Process(process.pid)
    finally:
        if process.returncode is None:
            process.terminate()
        await process.wait()
    drained.cancel()


@dataclass
class Side:
    """One server build: its source tree, its open sessions and what each measurement gave."""

    name: str
    src: Path
    stdio: Client | None = None
    stdio_server: psutil.Process | None = None
    http: list[Client] = field(default_factory=list)
    http_server: psutil.Process | None = None
    samples: dict[str, list[Sample]] = field(default_factory=dict)

    async def open(self, stack: AsyncExitStack, clients: int) -> None:
        parameters = StdioServerParameters(command=sys.executable, args=["-m", "statekit.server"],
                                           env={"PYTHONPATH": str(self.src), "STATEKIT_PROVIDER": "none"})
        started_before = {child.pid for child in psutil.Process().children()}
        self.stdio = await stack.enter_async_context(Client(parameters, mode="auto"))
        (self.stdio_server,) = [child for child in psutil.Process().children() if child.pid not in started_before]
        url, self.http_server = await stack.enter_async_context(http_server(self.src))
        http = await stack.enter_async_context(create_mcp_http_client())
        for _ in range(clients):
            client = Client(streamable_http_client(url, http_client=http), mode=MODERN)
            self.http.append(await stack.enter_async_context(client))

    async def over_stdio(self, calls: int, inflight: int) -> Sample:
        assert self.stdio is not None and self.stdio_server is not None, "open() first"
        return await drive(self.stdio_server, [self.stdio], calls, inflight)

    async def over_http(self, calls: int) -> Sample:
        assert self.http_server is not None, "open() first"
        return await drive(self.http_server, self.http, calls, len(self.http))

    def record(self, label: str, sample: Sample) -> None:
        self.samples.setdefault(label, []).append(sample)


def git_revision(src: Path) -> str:
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(src), *args], capture_output=True, text=True).stdout.strip()

    dirty = " + uncommitted changes" if git("status", "--porcelain", "--untracked-files=no") else ""
    return f"{git('rev-parse', '--short', 'HEAD') or 'unknown'}{dirty}"


def median_of(samples: list[Sample], figure: Callable[[Sample], float]) -> float:
    return statistics.median(figure(sample) for sample in samples)


def report(before: Side, after: Side, args: argparse.Namespace, loads: tuple[str, str], seconds: float) -> bool:
    """Print the table; True when every ratio meets its goal."""
    print(f"\n{shlex.join([Path(sys.executable).name, *sys.argv])}")
    print(f"before: {before.src} ({git_revision(before.src)}); after: {after.src} ({git_revision(after.src)})")
    print(f"{args.rounds} interleaved rounds in {seconds:.0f} s; load average (1, 5, 15 min) "
          f"{loads[0]} at the start, {loads[1]} at the end; {os.cpu_count()} cores; Python {sys.version.split()[0]}\n")
    print("| measurement | figure | before | after | after ÷ before | goal |")
    print("|---|---|---:|---:|---:|---|")
    met = True
    for label in before.samples:
        rows: list[tuple[str, Callable[[Sample], float], str, bool]] = [
            ("p50 latency ms", lambda s: s.percentile(0.5) * 1000, f"≤ {LATENCY_GOAL}x", True),
            ("p99 latency ms", lambda s: s.percentile(0.99) * 1000, f"≤ {LATENCY_GOAL}x", True),
            ("calls/s", lambda s: s.throughput, f"≥ {THROUGHPUT_GOAL}x", False),
            ("server CPU ms/call", lambda s: s.cpu_ms_per_call, "", True),
        ]
        for figure_name, figure, goal, lower_is_better in rows:
            old, new = median_of(before.samples[label], figure), median_of(after.samples[label], figure)
            # Each round's two samples were taken back to back, under the same load from others:
            # the median of their ratios is steadier than the ratio of the medians.
            ratio = statistics.median(figure(a) / figure(b) for a, b in zip(
                after.samples[label], before.samples[label], strict=True))
            if not goal:  # what explains the figures, not a goal of the issue
                print(f"| {label} | {figure_name} | {old:,.2f} | {new:,.2f} | {ratio:.2f}x | - |")
                continue
            ok = ratio <= LATENCY_GOAL if lower_is_better else ratio >= THROUGHPUT_GOAL
            met = met and ok
            print(f"| {label} | {figure_name} | {old:,.1f} | {new:,.1f} | {ratio:.2f}x | {goal} {'met' if ok else 'NOT met'} |")
    return met


def load_average() -> str:
    return ", ".join(f"{value:.1f}" for value in os.getloadavg())


Measurement = tuple[str, Callable[[Side], Awaitable[Sample]]]


async def rounds(before: Side, after: Side, measurements: list[Measurement], args: argparse.Namespace,
                 stack: AsyncExitStack) -> tuple[list[str], float]:
    """Open both sides, warm them up, then measure interleaved rounds; the load averages and seconds."""
    for side in (before, after):
        await side.open(stack, args.clients)
    for side in (before, after):  # warm-up: imports, first-use caches, connection pools
        for _label, measure in measurements:
            await measure(side)
    loads, started = [load_average()], time.perf_counter()
    for round_number in range(args.rounds):
        order = (before, after) if round_number % 2 == 0 else (after, before)
        for label, measure in measurements:
            for side in order:
                try:
                    side.record(label, await measure(side))
                except CallFailed as error:
                    raise CallFailed(f"{side.name} ({side.src}), {label}: {error}") from error
        print(f"round {round_number + 1}/{args.rounds} done, load {load_average()}", file=sys.stderr)
    return [*loads, load_average()], time.perf_counter() - started


async def run(args: argparse.Namespace) -> bool:
    before, after = Side("before", args.before.resolve()), Side("after", args.after.resolve())
    measurements: list[Measurement] = [
        ("stdio, 1 in flight", lambda side: side.over_stdio(args.stdio_calls, 1)),
        (f"stdio, {args.stdio_inflight} in flight",
         lambda side: side.over_stdio(args.stdio_calls * 2, args.stdio_inflight)),
        (f"HTTP, {args.clients} clients", lambda side: side.over_http(args.http_calls)),
    ]
    failure: CallFailed | None = None
    try:
        async with AsyncExitStack() as stack:
            try:
                loads, seconds = await rounds(before, after, measurements, args, stack)
            except CallFailed as error:
                failure = error
    except BaseExceptionGroup:
        if failure is None:
            raise
        # The sessions closing after the failed call re-raise its transport's error: said below.
    if failure is not None:
        raise SystemExit(f"a call failed, no figures: {failure}")
    return report(before, after, args, (loads[0], loads[1]), seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=Path, required=True, help="source tree of the build before (its src/)")
    parser.add_argument("--after", type=Path, required=True, help="source tree of the build after (its src/)")
    parser.add_argument("--rounds", type=int, default=9, help="interleaved rounds (the figures are their medians)")
    parser.add_argument("--stdio-calls", type=int, default=100, help="calls per round over stdio, 1 in flight (twice as many with more in flight)")
    parser.add_argument("--stdio-inflight", type=int, default=10, help="calls in flight for stdio throughput")
    parser.add_argument("--clients", type=int, default=50, help="concurrent HTTP clients")
    parser.add_argument("--http-calls", type=int, default=400, help="HTTP calls per round, over all clients")
    args = parser.parse_args()
    if args.rounds < 5:
        parser.error("--rounds must be at least 5 (the figures are medians of rounds)")
    met = asyncio.run(run(args))
    sys.exit(0 if met else 1)


if __name__ == "__main__":
    main()
