"""The size of `tools/list` as an agent pays for it: statekit's beside well-known MCP servers.

Each server runs as its own process over stdio and is listed by the official SDK client; the
figure is the compact JSON of the `tools` it returns, in bytes and in tiktoken o200k_base tokens
(tests/token_count.py). Peers come from bench/mcp_peers (`npm ci` there first); a peer whose
package is not installed is skipped with a note.

    PYTHONPATH=src:tests python bench/tool_list.py
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters

from token_count import count_tokens

ROOT = Path(__file__).resolve().parents[1]
PEERS = ROOT / "bench" / "mcp_peers" / "node_modules" / ".bin"


def servers(scratch: str) -> list[tuple[str, StdioServerParameters]]:
    env = {**os.environ}
    found = [("statekit serve", StdioServerParameters(command=sys.executable, args=["-m", "statekit.cli", "serve"],
                                                       env=env))]
    for label, binary, args in (("@modelcontextprotocol/server-filesystem", "mcp-server-filesystem", [scratch]),
                                ("@modelcontextprotocol/server-everything", "mcp-server-everything", ["stdio"])):
        path = PEERS / binary
        if path.exists():
            found.append((label, StdioServerParameters(command=str(path), args=args, env=env)))
        else:
            print(f"skipped {label}: run `npm ci` in bench/mcp_peers", file=sys.stderr)
    return found


async def measure(parameters: StdioServerParameters) -> tuple[int, int, int]:
    async with Client(parameters, mode="legacy") as client:
        listed = await client.list_tools()
    tools: list[Any] = [tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in listed.tools]
    text = json.dumps(tools, separators=(",", ":"), ensure_ascii=False)
    return len(tools), len(text.encode("utf-8")), count_tokens(text)


async def main() -> None:
    print("| server | tools | bytes | o200k tokens | bytes per tool | tokens per tool |")
    print("|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as scratch:
        for label, parameters in servers(scratch):
            count, size, tokens = await measure(parameters)
            print(f"| {label} | {count} | {size:,} | {tokens:,} | {size // count:,} | {tokens // count:,} |")


if __name__ == "__main__":
    asyncio.run(main())
