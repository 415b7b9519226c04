"""A Redis store: compare-and-set in one Lua script, shared by any number of processes.

Each handle is a Redis hash `{v: version, d: snapshot json}`. The script reads
the version and writes the new one atomically (Redis runs a script without
interleaving other commands), which is simpler and cheaper than WATCH/MULTI
retries. Requires the `redis` package (`pip install 'statekit[redis]'`).
"""

from __future__ import annotations

from typing import Any

from statekit.gate.store import StoreConflict

# KEYS[1] = the handle's key; ARGV = snapshot json, expected version ("" = absent), ttl ms ("0" = none).
# Returns {1, new_version} on success, {0, current_version or -1} on conflict.
_COMPARE_AND_SET = """
local current = redis.call('HGET', KEYS[1], 'v')
if ARGV[2] == '' then
  if current then return {0, tonumber(current)} end
elseif (not current) or current ~= ARGV[2] then
  return {0, current and tonumber(current) or -1}
end
local version = (current and tonumber(current) or 0) + 1
redis.call('HSET', KEYS[1], 'v', version, 'd', ARGV[1])
if tonumber(ARGV[3]) > 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
else
  redis.call('PERSIST', KEYS[1])
end
return {1, version}
"""


class RedisStore:
    """Versioned compare-and-set on Redis; TTL is Redis key expiry, refreshed on every save."""

    def __init__(
        self,
        client: Any,
        *,
        key_prefix: str = "statekit:gate:",
        ttl_seconds: float | None = None,
    ) -> None:
        """`client` is a `redis.asyncio.Redis` (created with the default `decode_responses=False`)."""
        if ttl_seconds is not None and ttl_seconds <= 0:
            raise ValueError("ttl_seconds must be positive")
        self._client = client
        self._key_prefix = key_prefix
        self._ttl_ms = 0 if ttl_seconds is None else max(1, round(ttl_seconds * 1000))
        self._script = client.register_script(_COMPARE_AND_SET)

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> RedisStore:
        """A store on a new `redis.asyncio` client for `url` (e.g. `redis://127.0.0.1:6379/0`)."""
        import redis.asyncio

        return cls(redis.asyncio.Redis.from_url(url), **kwargs)

    def _key(self, handle: str) -> str:
        return self._key_prefix + handle

    async def load(self, handle: str) -> tuple[str, int] | None:
        """The stored JSON and its version, or None when absent or expired."""
        version, data = await self._client.hmget(self._key(handle), ["v", "d"])
        if version is None or data is None:
            return None
        text = data.decode() if isinstance(data, bytes) else str(data)
        return text, int(version)

    async def save(self, handle: str, snapshot_json: str, expected_version: int | None) -> int:
        """Compare-and-set in one atomic script."""
        expected = "" if expected_version is None else str(expected_version)
        ok, version = await self._script(
            keys=[self._key(handle)], args=[snapshot_json, expected, str(self._ttl_ms)]
        )
        if int(ok) != 1:
            actual = None if int(version) < 0 else int(version)
            raise StoreConflict(handle, expected_version, actual)
        return int(version)

    async def aclose(self) -> None:
        """Close the underlying client."""
        await self._client.aclose()
