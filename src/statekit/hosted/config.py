"""Choosing the resource provider from the environment (no account needed by default)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from statekit.hosted.embedded import EmbeddedRegistry
from statekit.hosted.http_provider import DEFAULT_TIMEOUT_MS, HttpResourceProvider
from statekit.hosted.provider import DEFAULT_CLIENT_ID


def default_registry_path() -> Path:
    """`$STATEKIT_REGISTRY`, else `~/.statekit/registry.sqlite`."""
    configured = os.environ.get("STATEKIT_REGISTRY")
    return Path(configured) if configured else Path.home() / ".statekit" / "registry.sqlite"


def stately_credential() -> str | None:
    """`STATELY_ACCESS_TOKEN`, `STATELY_API_KEY`, or `accessToken`/`apiKey` in the config file."""
    for variable in ("STATELY_ACCESS_TOKEN", "STATELY_API_KEY"):
        value = os.environ.get(variable, "").strip()
        if value:
            return value
    config_path = Path(os.environ.get("STATELY_CONFIG", Path.home() / ".stately" / "config.json"))
    try:
        data: Any = json.loads(config_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if isinstance(data, dict):
        for key in ("accessToken", "apiKey"):
            if isinstance(data.get(key), str) and data[key].strip():
                return str(data[key]).strip()
    return None


def provider_from_environment(client_id: str = DEFAULT_CLIENT_ID) -> Any:
    """The provider the hosted tools use.

    `STATEKIT_PROVIDER=none` disables them; `STATELY_API_BASE_URL` (or `STATEKIT_PROVIDER=http`)
    selects a Stately-compatible HTTP API; otherwise the local embedded registry is used.
    """
    choice = os.environ.get("STATEKIT_PROVIDER", "").strip().lower()
    if choice == "none":
        return None
    base_url = os.environ.get("STATELY_API_BASE_URL", "").strip()
    if choice == "http" or (base_url and choice != "embedded"):
        timeout = os.environ.get("STATELY_API_TIMEOUT_MS", "").strip()
        return HttpResourceProvider(
            base_url or "https://editor.stately.ai/api",
            stately_credential(),
            timeout_ms=int(timeout) if timeout.isdigit() else DEFAULT_TIMEOUT_MS,
            client_id=client_id,
        )
    return EmbeddedRegistry(default_registry_path())
