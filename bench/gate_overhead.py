"""Gate overhead per call, and the size of `tools/list` per workflow state.

    python bench/gate_overhead.py                 # default: 3000 timed calls per scenario
    python bench/gate_overhead.py --calls 500     # quicker
    python bench/gate_overhead.py --json out.json # also write the raw figures
    python bench/gate_overhead.py --fastmcp       # FastMCP servers through fastmcp's Client instead
                                                  # (bench/gate_fastmcp.py: its options follow)

Two servers with the same tools and the same handlers, called in-process through
the official SDK's real `Client`: one plain low-level `Server`, one gated by
`statekit.gate` (session mode). Each call goes through the SDK's full server
path (request validation, middleware, result serialisation); the handlers do no
I/O, so the ratio is the gate's cost against the cheapest possible call, a worst
case for the gate. Scenarios:

- `bound call`: a tool bound to the current state that fires no event (load,
  restore, visibility check, state note on the result);
- `transition`: a call that fires an event (reserve the transition with a
  compare-and-set, run, commit with a second compare-and-set, notify);
- `tools/list`.

Both client modes are measured: `legacy` (JSON-RPC over in-memory streams after
an initialize handshake) and `2026-07-28` (the SDK's direct in-process dispatch,
no framing, so the smallest denominator). Stores: memory and SQLite.

Token counts: no tokenizer works offline here (`tiktoken` downloads its encodings
at first use), so tokens are approximated as ceil(characters / 4) of the JSON
that `tools/list` puts on the wire, the usual rule of thumb for English and JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import logging
import math
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import Client
from mcp.server.lowlevel.server import Server

from statekit.gate import Gate, GateCall, MemoryStore, SQLiteStore, StateStore

REPO = Path(__file__).resolve().parents[1]

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
LINE_SCHEMA = {
    "type": "object",
    "properties": {"description": {"type": "string"}, "amount": {"type": "number"}},
    "required": ["description", "amount"],
}


#: Simulated I/O per handler call (seconds); 0 is the no-I/O worst case for the gate.
HANDLER_IO = {"seconds": 0.0}


async def simulated_io() -> None:
    if HANDLER_IO["seconds"]:
        await asyncio.sleep(HANDLER_IO["seconds"])


async def add_line_item(arguments: dict[str, Any]) -> str:
    await simulated_io()
    return f"added {arguments['description']}"


async def submit_invoice(arguments: dict[str, Any]) -> str:
    await simulated_io()
    return "submitted"


async def reject_invoice(arguments: dict[str, Any]) -> str:
    await simulated_io()
    return "rejected"


HANDLERS: dict[str, Callable[[dict[str, Any]], Awaitable[str]]] = {
    "add_line_item": add_line_item,
    "submit_invoice": submit_invoice,
    "reject_invoice": reject_invoice,
}
SCHEMAS = {"add_line_item": LINE_SCHEMA}


def plain_server() -> Server[Any]:
    """The same tools without a gate."""
    tools = [
        types.Tool(
            name=name, description=f"{name}.", input_schema=SCHEMAS.get(name, {"type": "object"})
        )
        for name in HANDLERS
    ]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        text = await HANDLERS[params.name](dict(params.arguments or {}))
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    return Server("plain", on_list_tools=list_tools, on_call_tool=call_tool)


def gated_server(store: StateStore, state_note: bool = True) -> Server[Any]:
    """The same tools, gated: add/submit in draft, reject in review."""
    server: Server[Any] = Server("gated")
    gate = Gate(WORKFLOW, store=store, state_note=state_note)
    binds = {
        "add_line_item": ("draft", None),
        "submit_invoice": ("draft", "SUBMIT"),
        "reject_invoice": ("review", "REJECT"),
    }
    for name, handler in HANDLERS.items():
        state, event = binds[name]

        async def gated(arguments: dict[str, Any], call: GateCall, run: Any = handler) -> str:
            return str(await run(arguments))

        gate.tool(
            name,
            description=f"{name}.",
            input_schema=SCHEMAS.get(name),
            bind=state,
            on_success=event,
        )(gated)
    gate.install(server)
    return server


def percentiles(samples_ns: list[int]) -> dict[str, float]:
    ordered = sorted(samples_ns)
    return {
        "p50_us": statistics.median(ordered) / 1000,
        "p99_us": ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)] / 1000,
    }


async def timed(calls: int, warmup: int, step: Callable[[int], Awaitable[Any]]) -> dict[str, float]:
    for index in range(warmup):
        await step(index)
    samples: list[int] = []
    for index in range(calls):
        started = time.perf_counter_ns()
        await step(index)
        samples.append(time.perf_counter_ns() - started)
    return percentiles(samples)


async def measure(
    server: Server[Any], mode: str, calls: int, gated: bool
) -> dict[str, dict[str, float]]:
    """p50/p99 of each scenario through `Client(server)`."""
    line = {"description": "x", "amount": 1}
    async with Client(server, mode=mode) as client:

        async def call(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
            # `Client.call_tool` re-lists the tools whenever it meets a tool missing from its
            # cached list (to find an output schema), which a gated list makes frequent. That
            # is client behaviour, not server cost, so the request is sent as call_tool sends it
            # but without that client-side step.
            request = types.CallToolRequest(
                params=types.CallToolRequestParams(name=name, arguments=arguments)
            )
            result = await client.session.send_request(request, types.CallToolResult)
            assert isinstance(result, types.CallToolResult) and not result.is_error, result
            return result

        async def bound_call(index: int) -> None:
            await call("add_line_item", line)

        async def transition(index: int) -> None:
            await call("submit_invoice" if index % 2 == 0 else "reject_invoice", {})

        async def list_tools(index: int) -> None:
            await client.list_tools(cache_mode="bypass")

        warmup = max(50, calls // 10)
        figures = {
            "bound call": await timed(calls, warmup, bound_call),
            "transition": await timed(calls, warmup, transition),
            "tools/list": await timed(calls, warmup, list_tools),
        }
        if gated:
            # Every transition pair returned the workflow to draft.
            assert [t.name for t in (await client.list_tools(cache_mode="bypass")).tools] == [
                "add_line_item",
                "submit_invoice",
            ]
        return figures


def load_example() -> Any:
    spec = importlib.util.spec_from_file_location(
        "invoice_server", REPO / "examples" / "invoice_server.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def approx_tokens(tools: list[types.Tool]) -> tuple[int, int]:
    """(characters, ceil(characters / 4)) of the tools as `tools/list` serialises them."""
    text = json.dumps(
        [tool.model_dump(by_alias=True, mode="json", exclude_none=True) for tool in tools],
        separators=(",", ":"),
    )
    return len(text), math.ceil(len(text) / 4)


async def list_sizes() -> list[dict[str, Any]]:
    """The example's `tools/list` in each state, against every tool with full descriptions."""
    example = load_example()
    gated = example.build_server()
    path = [
        ("draft", None, None),
        ("review", "add_line_item", {"description": "x", "amount": 1}),
        ("approved", "approve_invoice", {}),
        ("discharged", "discharge_invoice", {}),
    ]
    rows: list[dict[str, Any]] = []
    async with Client(gated, mode="legacy") as client:
        for state, tool, arguments in path:
            if tool is not None:
                await client.call_tool(tool, arguments)
                if state == "review":
                    await client.call_tool("submit_invoice", {})
            rows.append({"state": state, "tools": (await client.list_tools()).tools})
    full = example_full_catalog(example)
    full_chars, full_tokens = approx_tokens(full)
    table = []
    for row in rows:
        chars, tokens = approx_tokens(row["tools"])
        table.append(
            {
                "state": row["state"],
                "tools": [t.name for t in row["tools"]],
                "chars": chars,
                "tokens": tokens,
                "full_chars": full_chars,
                "full_tokens": full_tokens,
                "full_count": len(full),
            }
        )
    return table


def example_full_catalog(example: Any) -> list[types.Tool]:
    """Every tool of the example with its full description: what an ungated server lists."""
    server = example.build_server()
    entry = server.get_request_handler("tools/call")
    gate: Gate = entry.handler.__self__
    return [gate_tool.tool for gate_tool in gate._tools.values()]


async def main() -> None:
    # The fallback-workflow warning is expected here (in-process clients have no session id).
    logging.getLogger("statekit.gate").setLevel(logging.ERROR)
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=3000, help="timed calls per scenario")
    parser.add_argument("--json", type=Path, help="write the raw figures here")
    args = parser.parse_args()
    results: dict[str, Any] = {"calls": args.calls, "overhead": []}
    with tempfile.TemporaryDirectory() as scratch:
        stores: dict[str, Callable[[], StateStore]] = {
            "memory": MemoryStore,
            "sqlite": lambda: SQLiteStore(Path(scratch) / "bench.db"),
        }
        modes = ("legacy", "2026-07-28")
        runs = [(mode, 0.0, store, True) for mode in modes for store in stores]
        # Without the state note on results: what the note itself costs.
        runs += [(mode, 0.0, "memory", False) for mode in modes]
        # A handler that waits 1 ms, as one doing a database or HTTP round trip would.
        runs += [(mode, 0.001, "memory", True) for mode in modes]
        baselines: dict[tuple[str, float], dict[str, dict[str, float]]] = {}
        for mode, io_seconds, store_name, state_note in runs:
            HANDLER_IO["seconds"] = io_seconds
            if (mode, io_seconds) not in baselines:
                baselines[mode, io_seconds] = await measure(
                    plain_server(), mode, args.calls, gated=False
                )
            plain = baselines[mode, io_seconds]
            server = gated_server(stores[store_name](), state_note=state_note)
            gated = await measure(server, mode, args.calls, gated=True)
            for scenario, base in plain.items():
                if (io_seconds or not state_note) and scenario == "tools/list":
                    continue
                figures = gated[scenario]
                results["overhead"].append(
                    {
                        "mode": mode,
                        "store": store_name if state_note else f"{store_name}, no state note",
                        "handler_io_ms": io_seconds * 1000,
                        "scenario": scenario,
                        "plain_p50_us": base["p50_us"],
                        "plain_p99_us": base["p99_us"],
                        "gated_p50_us": figures["p50_us"],
                        "gated_p99_us": figures["p99_us"],
                        "overhead_p50_us": figures["p50_us"] - base["p50_us"],
                        "overhead_p50_pct": 100 * (figures["p50_us"] / base["p50_us"] - 1),
                    }
                )
    results["tools_list"] = await list_sizes()
    print(f"Gate overhead, {args.calls} calls per scenario, Python {sys.version.split()[0]}\n")
    print(
        "| client mode | store | handler I/O | scenario | ungated p50 / p99 (µs) "
        "| gated p50 / p99 (µs) | overhead p50 |"
    )
    print("|---|---|---|---|---|---|---|")
    for row in results["overhead"]:
        print(
            f"| {row['mode']} | {row['store']} | {row['handler_io_ms']:g} ms | {row['scenario']} | "
            f"{row['plain_p50_us']:.0f} / {row['plain_p99_us']:.0f} | "
            f"{row['gated_p50_us']:.0f} / {row['gated_p99_us']:.0f} | "
            f"{row['overhead_p50_us']:+.0f} µs ({row['overhead_p50_pct']:+.1f}%) |"
        )
    print("\n`tools/list` of examples/invoice_server.py per state (tokens ≈ characters / 4)\n")
    print("| state | tools listed | characters | ≈ tokens | full list ≈ tokens | share of full |")
    print("|---|---|---|---|---|---|")
    for row in results["tools_list"]:
        print(
            f"| {row['state']} | {', '.join(row['tools'])} | {row['chars']} | {row['tokens']} | "
            f"{row['full_tokens']} ({row['full_count']} tools) | {100 * row['tokens'] / row['full_tokens']:.0f}% |"
        )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, default=str))


if __name__ == "__main__":
    if "--fastmcp" in sys.argv[1:]:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import gate_fastmcp

        gate_fastmcp.main([argument for argument in sys.argv[1:] if argument != "--fastmcp"])
    else:
        asyncio.run(main())
