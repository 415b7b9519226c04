"""The gate's cost on FastMCP: gated ÷ ungated per call, through FastMCP's own `Client`.

    python bench/gate_fastmcp.py                    # 2000 calls per scenario, memory, SQLite, Redis
    python bench/gate_fastmcp.py --calls 500 --stores memory
    python bench/gate_overhead.py --fastmcp         # the same, from the gate benchmark

Two FastMCP servers with the same `@mcp.tool` functions (plain `def`, which FastMCP runs in a
worker thread, as most FastMCP tools are written), one gated with `gate.bind`
(session mode, the gate's FastMCP middleware), each called in-process by its own real
`fastmcp.Client` with `call_tool`, the way an application calls it (result parsing, output
schema validation and any re-list the client decides to do included). The calls are
interleaved, gated and ungated alternating in one loop (which goes first alternates too),
so load on the machine lands on both sides alike. Two figures: the ratio of the medians, and
the median of the per-pair ratios (each gated call against the ungated call beside it), which
holds up better when other work on the machine comes and goes.

Scenarios:

- `bound read`: `add_line_item`, bound to `draft`, fires no event (load the workflow,
  check the state, run, add the state note);
- `workflow`: `submit_invoice` then `reject_invoice`, each firing an event (a transition per
  call: reserve, run, commit, list_changed), timed per call.

Stores: memory, SQLite (a temporary file), Redis (a `redis-server` this script starts on a
free loopback port, without persistence). The client's `tools/list` requests to the gated
server are counted: a client pushed into re-listing after every call pays for it here.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fastmcp import Client, FastMCP
from fastmcp.server.middleware import Middleware

from statekit.gate import Gate, MemoryStore, RedisStore, SQLiteStore, StateStore

WORKFLOW: dict[str, Any] = {
    "id": "invoice",
    "initial": "draft",
    "states": {
        "draft": {"on": {"SUBMIT": "review"}},
        "review": {"on": {"APPROVE": "approved", "REJECT": "draft"}},
        "approved": {"on": {"DISCHARGE": "discharged"}},
        "discharged": {"type": "final"},
    },
}


class NotListedWarnings(logging.Handler):
    """Counts the clients' "Tool ... not listed by server" warnings (a re-list that missed the tool)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if "not listed by server" in record.getMessage():
            self.count += 1


WARNINGS = NotListedWarnings()


class ListCounter(Middleware):
    """Counts the `tools/list` requests a server answers."""

    def __init__(self) -> None:
        self.lists = 0

    async def on_list_tools(self, context: Any, call_next: Any) -> Any:
        self.lists += 1
        return await call_next(context)


def invoice_server(gate: Gate | None) -> tuple[FastMCP, ListCounter]:
    """The invoice tools on FastMCP; gated when `gate` is given."""
    mcp = FastMCP("invoices")

    @mcp.tool
    def add_line_item(description: str, amount: float) -> str:
        """Add a line item to the draft."""
        return f"added {description}"

    @mcp.tool
    def submit_invoice() -> str:
        """Submit the draft for review."""
        return "submitted"

    @mcp.tool
    def reject_invoice() -> str:
        """Send the invoice back to draft."""
        return "rejected"

    counter = ListCounter()
    mcp.add_middleware(counter)
    if gate is not None:
        gate.bind("add_line_item", "draft")
        gate.bind("submit_invoice", "draft", "SUBMIT")
        gate.bind("reject_invoice", "review", "REJECT")
        gate.install(mcp)
    return mcp, counter


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def redis_server() -> Iterator[str]:
    """A throw-away `redis-server` on loopback (no persistence); yields its URL."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("redis-server is not installed; pass --stores memory,sqlite")
    port = free_port()
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    try:
        for _ in range(500):
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.01)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(timeout=10)


Step = Callable[[Client, int], Awaitable[Any]]


async def bound_read(client: Client, index: int) -> None:
    result = await client.call_tool("add_line_item", {"description": "x", "amount": 1}, raise_on_error=False)
    assert not result.is_error, result


async def workflow(client: Client, index: int) -> None:
    name = "submit_invoice" if index % 2 == 0 else "reject_invoice"
    result = await client.call_tool(name, {}, raise_on_error=False)
    assert not result.is_error, result


async def interleaved(plain: Client, gated: Client, step: Step, calls: int) -> tuple[list[int], list[int]]:
    """Time `step` on both clients, alternating (and alternating which goes first)."""
    warmup = max(20, calls // 10)
    plain_ns: list[int] = []
    gated_ns: list[int] = []
    for index in range(warmup + calls):
        # Both sides take the same step index, so a workflow pair stays a pair on each side.
        pair = ((plain, plain_ns), (gated, gated_ns))
        for client, samples in pair if index % 2 == 0 else reversed(pair):
            started = time.perf_counter_ns()
            await step(client, index)
            elapsed = time.perf_counter_ns() - started
            if index >= warmup:
                samples.append(elapsed)
    return plain_ns, gated_ns


async def run_store(store_name: str, store: StateStore, era: str, calls: int) -> list[dict[str, Any]]:
    plain_server, _ = invoice_server(None)
    gated_server, counter = invoice_server(Gate(WORKFLOW, store=store))
    rows = []
    mode = "legacy" if era == "legacy" else "auto"
    async with Client(plain_server, mode=mode) as plain, Client(gated_server, mode=mode) as gated:
        for scenario, step in (("bound read", bound_read), ("workflow", workflow)):
            counter.lists = 0
            WARNINGS.count = 0
            plain_ns, gated_ns = await interleaved(plain, gated, step, calls)
            plain_p50 = statistics.median(plain_ns) / 1000
            gated_p50 = statistics.median(gated_ns) / 1000
            # Each gated call against the ungated call next to it: both saw the same moment of load.
            paired = statistics.median(gated / plain for gated, plain in zip(gated_ns, plain_ns, strict=True))
            rows.append({
                "era": era,
                "store": store_name,
                "scenario": scenario,
                "ungated_p50_us": plain_p50,
                "gated_p50_us": gated_p50,
                "ratio": gated_p50 / plain_p50,
                "paired_ratio": paired,
                "lists_per_call": counter.lists / len(gated_ns),
                "warnings_per_call": WARNINGS.count / len(gated_ns),
            })
    return rows


async def measure(calls: int, stores: list[str], eras: list[str]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as scratch, redis_server() if "redis" in stores else _nothing() as url:
        for era in eras:
            for store_name in stores:
                store: StateStore
                if store_name == "memory":
                    store = MemoryStore()
                elif store_name == "sqlite":
                    store = SQLiteStore(Path(scratch) / f"bench-{era}.db")
                else:
                    assert url is not None
                    store = RedisStore.from_url(url, )
                rows += await run_store(store_name, store, era, calls)
                close = getattr(store, "close", None)
                if close is not None:
                    outcome = close()
                    if asyncio.iscoroutine(outcome):
                        await outcome
    return rows


@contextmanager
def _nothing() -> Iterator[None]:
    yield None


def print_table(rows: list[dict[str, Any]], calls: int) -> None:
    load = os.getloadavg()
    print(
        f"FastMCP gate overhead, {calls} interleaved calls per scenario, Python "
        f"{sys.version.split()[0]}, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}\n"
    )
    print(
        "| era | store | scenario | ungated p50 (µs) | gated p50 (µs) | gated ÷ ungated, medians "
        "| gated ÷ ungated, median of pairs | client tools/list per gated call "
        "| \"not listed\" warnings per gated call |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['era']} | {row['store']} | {row['scenario']} | {row['ungated_p50_us']:.0f} | "
            f"{row['gated_p50_us']:.0f} | {row['ratio']:.2f}x | {row['paired_ratio']:.2f}x | "
            f"{row['lists_per_call']:.2f} | "
            f"{row['warnings_per_call']:.2f} |"
        )


def main(argv: list[str] | None = None) -> None:
    # In-process clients have no session id: the per-server fallback workflow is expected.
    logging.getLogger("statekit.gate").setLevel(logging.ERROR)
    # The clients' warnings are counted into the table instead of printed.
    logging.getLogger().addHandler(WARNINGS)
    logging.getLogger().setLevel(logging.WARNING)
    for handler in logging.getLogger().handlers:
        if handler is not WARNINGS:
            handler.setLevel(logging.ERROR)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=2000, help="timed calls per scenario and side")
    parser.add_argument("--stores", default="memory,sqlite,redis")
    parser.add_argument("--eras", default="legacy,2026-07-28")
    args = parser.parse_args(argv)
    rows = asyncio.run(measure(args.calls, args.stores.split(","), args.eras.split(",")))
    print_table(rows, args.calls)


if __name__ == "__main__":
    main()
