"""MCP server benchmark: cold start against a bare SDK server, and HTTP call throughput.

    python bench/server.py [--starts 10] [--clients 50] [--calls 2000]

Cold start: process spawn to the first `tools/list` answered over stdio (legacy handshake),
for `statekit serve` and for a bare `mcp` SDK low-level server with one tool, interleaved.
Throughput: `statekit serve --http` (no auth, loopback) under N concurrent clients sending
2026-07-28 stateless `tools/call` requests (simulate_machine), and the same load against the
bare SDK server's one tool, side by side: calls/s and p50/p99 latency.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

BARE_SERVER = '''
import sys, anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[types.Tool(name="echo", description="echo", input_schema={"type": "object"})])

async def call_tool(ctx, params):
    return types.CallToolResult(content=[types.TextContent(type="text", text="ok")])

server = Server("bare", on_list_tools=list_tools, on_call_tool=call_tool)

async def main():
    if "--http" in sys.argv:
        import uvicorn
        app = server.streamable_http_app(stateless_http=True, json_response=True, host="127.0.0.1")
        config = uvicorn.Config(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
        print(f"http://127.0.0.1:{sys.argv[2]}/mcp", file=sys.stderr, flush=True)
        await uvicorn.Server(config).serve()
    else:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

anyio.run(main)
'''

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
MACHINE = {"id": "player", "initial": "paused", "states": {
    "paused": {"on": {"PLAY": "playing"}}, "playing": {"on": {"PAUSE": "paused", "STOP": "stopped"}},
    "stopped": {"type": "final"}}}


def cold_start(command: list[str]) -> float:
    started = time.perf_counter()
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert process.stdin is not None and process.stdout is not None
    for message in (INIT, INITIALIZED, LIST):
        process.stdin.write(json.dumps(message) + "\n")
    process.stdin.flush()
    while True:
        line = process.stdout.readline()
        if not line:
            raise RuntimeError(f"{command} exited before answering tools/list")
        if json.loads(line).get("id") == 2:
            break
    elapsed = time.perf_counter() - started
    process.kill()
    process.wait()
    return elapsed


def start_http(command: list[str]) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    assert process.stderr is not None
    for _ in range(100):
        match = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", process.stderr.readline())
        if match:
            time.sleep(0.5)
            return process, match.group(1)
    raise RuntimeError(f"{command} printed no URL")


def modern_call(tool: str, arguments: dict[str, object], request_id: int) -> tuple[dict[str, str], dict[str, object]]:
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": tool}
    body = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {
        "name": tool, "arguments": arguments,
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}}
    return headers, body


async def load(url: str, tool: str, arguments: dict[str, object], clients: int, calls: int) -> tuple[float, list[float]]:
    latencies: list[float] = []
    counter = iter(range(calls))

    async def client(http: httpx.AsyncClient) -> None:
        for request_id in counter:
            headers, body = modern_call(tool, arguments, request_id + 10)
            started = time.perf_counter()
            response = await http.post(url, headers=headers, json=body)
            latencies.append(time.perf_counter() - started)
            answer = response.json()
            if response.status_code != 200 or "error" in answer or answer["result"].get("isError"):
                raise RuntimeError(f"call failed: {response.status_code} {str(answer)[:300]}")

    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(limits=limits, timeout=60) as http:
        started = time.perf_counter()
        await asyncio.gather(*(client(http) for _ in range(clients)))
        return time.perf_counter() - started, latencies


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--starts", type=int, default=10)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        bare = Path(scratch, "bare_server.py")
        bare.write_text(BARE_SERVER)
        statekit_cmd = [sys.executable, "-m", "statekit.server"]
        bare_cmd = [sys.executable, str(bare)]
        starts: dict[str, list[float]] = {"statekit serve": [], "bare SDK server": []}
        for _ in range(args.starts):
            starts["statekit serve"].append(cold_start(statekit_cmd))
            starts["bare SDK server"].append(cold_start(bare_cmd))
        print(f"## Cold start (stdio, spawn to first tools/list), {args.starts} interleaved runs\n")
        print("| server | median s | min s | statekit ÷ bare |\n|---|---:|---:|---:|")
        bare_median = statistics.median(starts["bare SDK server"])
        for name, values in starts.items():
            print(f"| {name} | {statistics.median(values):.3f} | {min(values):.3f} | "
                  f"{statistics.median(values) / bare_median:.2f}x |")
        print(f"\n## HTTP tools/call, {args.clients} concurrent clients, {args.calls} calls (2026-07-28 stateless)\n")
        print("| server, tool | calls/s | p50 ms | p99 ms |\n|---|---:|---:|---:|")
        runs = [
            ("statekit, simulate_machine", [*statekit_cmd, "--http", "--auth", "none", "--port", "0"],
             "simulate_machine", {"machine": MACHINE, "events": ["PLAY", "PAUSE", "PLAY", "STOP"]}),
            ("statekit, validate_machine", [*statekit_cmd, "--http", "--auth", "none", "--port", "0"],
             "validate_machine", {"machine": MACHINE}),
            ("bare SDK server, echo", [*bare_cmd, "--http", str(18_000 + os.getpid() % 1000)], "echo", {}),
        ]
        for label, command, tool, arguments in runs:
            process, url = start_http(command)
            try:
                asyncio.run(load(url, tool, arguments, args.clients, min(200, args.calls)))  # warm up
                elapsed, latencies = asyncio.run(load(url, tool, arguments, args.clients, args.calls))
            finally:
                process.terminate()
                process.wait()
            print(f"| {label} | {len(latencies) / elapsed:,.0f} | {percentile(latencies, 0.5) * 1000:.1f} | "
                  f"{percentile(latencies, 0.99) * 1000:.1f} |")


if __name__ == "__main__":
    main()
