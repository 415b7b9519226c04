"""`statekit canary URL`: check a running server from outside, as a deployment check.

It connects over streamable HTTP with the SDK's client, checks tool discovery (every spec
tool present, annotated as this version's registry annotates it: read-only except for the tools that change state), fetches the visualization app template and prints its
SHA-256, checks that the app URI linked from `visualize_machine` is the stable one earlier
results point at, and runs a minimal visualization. Exit status 0 when every check passed.
"""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any

#: The tools a complete deployment serves (hosted tools need a provider to answer, not to list).
EXPECTED_TOOLS = (
    "validate_machine", "convert_machine", "diff_machines", "apply_machine_patches", "review_machine_implementation",
    "generate_graph_paths", "simulate_machine", "visualize_machine", "extract_machines_from_code", "list_machines",
    "get_machine", "verify", "generate_test_paths", "coverage_report", "list_stately_projects", "get_stately_project",
    "list_stately_project_machines", "get_stately_machine", "visualize_stately_machine",
)


def changing_tools() -> frozenset[str]:
    """The tools this version annotates as changing something (live machines, `verify`): a
    deployment must list them so, and every other tool as read-only."""
    from statekit.tools import registry

    return frozenset(name for name, spec in registry.tools().items() if not spec.annotations.read_only)

#: The app URI saved visualizations refer to; it must not change.
STABLE_APP_URI = "ui://statekit/machine-viewer.html"
PROBE_MACHINE = {"id": "canary", "initial": "a", "states": {"a": {"on": {"GO": "b"}}, "b": {"initial": "c", "states": {"c": {}}}}}


async def run_canary(url: str, token: str | None, mode: str = "auto") -> list[tuple[str, bool, str]]:
    """Run every check; each result is `(check, passed, detail)`."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    results: list[tuple[str, bool, str]] = []
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    http = create_mcp_http_client(headers=headers)
    async with http, Client(streamable_http_client(url, http_client=http), mode=mode) as client:
        listed = await client.list_tools()
        names = {tool.name for tool in listed.tools}
        missing = [name for name in EXPECTED_TOOLS if name not in names]
        results.append(("tool discovery", not missing,
                        f"{len(names)} tools" + (f"; missing: {', '.join(missing)}" if missing else "")))
        writable = {t.name for t in listed.tools if not (t.annotations and t.annotations.read_only_hint)}
        wrong = sorted(writable ^ (changing_tools() & names))
        results.append(("read-only annotations", not wrong,
                        f"mis-annotated: {', '.join(wrong)}" if wrong else
                        "all read-only" + (f" but the stateful {', '.join(sorted(writable))}" if writable else "")))
        visualize = next((t for t in listed.tools if t.name == "visualize_machine"), None)
        app_uri = _app_uri(visualize)
        results.append(("stable app URI", app_uri == STABLE_APP_URI, str(app_uri)))
        if app_uri:
            read = await client.read_resource(app_uri)
            text = "".join(getattr(item, "text", "") or "" for item in read.contents)
            mime = read.contents[0].mime_type if read.contents else None
            digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
            results.append(("app template", bool(text) and mime == "text/html;profile=mcp-app",
                            f"{mime}, {len(text)} bytes, sha256 {digest}"))
        if visualize is not None:
            call = await client.call_tool("visualize_machine", {"machine": PROBE_MACHINE})
            content: Any = call.structured_content or {}
            images = [block for block in call.content if getattr(block, "type", "") == "image"]
            ok = (not call.is_error and content.get("interactive", {}).get("status") == "ready"
                  and content.get("pngFallback", {}).get("status") == "ready" and len(images) == 2)
            results.append(("minimal visualization", ok, f"{len(images)} PNG(s), interactive "
                            f"{content.get('interactive', {}).get('status')}"))
    return results


def _app_uri(tool: Any) -> str | None:
    meta = getattr(tool, "meta", None) or {}
    ui = meta.get("ui") if isinstance(meta, dict) else None
    uri = ui.get("resourceUri") if isinstance(ui, dict) else None
    return uri if isinstance(uri, str) else None


def run(args: Any) -> int:
    """`statekit canary URL [--token T] [--mode M]` (options parsed by statekit.cli.serve)."""
    import os

    token = args.token or os.environ.get("STATEKIT_CANARY_TOKEN")
    try:
        results = asyncio.run(run_canary(args.url, token, args.mode))
    except Exception as error:  # connection refused, auth failure, protocol error
        print(f"FAIL connect: {type(error).__name__}: {str(error)[:300]}")
        return 1
    for check, passed, detail in results:
        print(f"{'ok  ' if passed else 'FAIL'} {check}: {detail}")
    return 0 if all(passed for _, passed, _ in results) else 1

