"""A state store from a URL: `memory://`, `sqlite:///path/to/file.db`, `redis://host:port/db`.

The path of a `sqlite:` URL is taken as written after the scheme's `//`: `sqlite:///var/x.db` is
the absolute `/var/x.db`, `sqlite://state.db` the relative `state.db`; `~` is expanded.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

from statekit.gate.store import MemoryStore, OwnedStore

SCHEMES = ("memory", "sqlite", "redis", "rediss")


def missing_sqlite_file(url: str) -> str | None:
    """The path of the SQLite file `url` names when no such file exists yet, else None: a call
    that only reads or changes an existing live machine has nothing to find there, and opening
    the store would create the file (a mistyped path would leave an empty database behind)."""
    parts = urlsplit(url)
    if parts.scheme.lower() != "sqlite":
        return None
    path = os.path.expanduser(parts.netloc + parts.path)
    return path if path and not os.path.exists(path) else None


def store_from_url(url: str, *, ttl_seconds: float | None = None, key_prefix: str = "statekit:") -> OwnedStore:
    """The store `url` names; `ValueError` (with the accepted forms) for anything else, and a
    `StoreError` when the store cannot be used (a SQLite file that is not a database)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme == "memory":
        return MemoryStore(ttl_seconds=ttl_seconds)
    if scheme == "sqlite":
        from statekit.gate.sqlite_store import SQLiteStore

        path = os.path.expanduser(parts.netloc + parts.path)
        if not path:
            raise ValueError("a sqlite store URL needs a file path: sqlite:///path/to/file.db")
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        return SQLiteStore(path, ttl_seconds=ttl_seconds)
    if scheme in ("redis", "rediss"):
        from statekit.gate.redis_store import RedisStore

        return RedisStore.from_url(url, ttl_seconds=ttl_seconds, key_prefix=key_prefix)
    raise ValueError(f"unknown store URL {url!r}: use memory://, sqlite:///path/to/file.db or redis://host:port/db")
